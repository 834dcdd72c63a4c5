# The look shared by every chart: loaded by each NAME.gp after its `set terminal`.
# Edit freely (the workspace keeps a copy in templates/charts/: edit that one and run
# `llmdlua analyze.lua <workspace>`).
#
# Run A and run B differ in colour (Okabe-Ito blue and vermillion, told apart by
# colour-blind readers), in dash pattern and in marker shape, so that they stay apart
# printed in greyscale too.
set encoding utf8
color_a = '#0072B2'
color_b = '#D55E00'
set style line 1 linecolor rgb '#0072B2' linewidth 2 dashtype 1 pointtype 7 pointsize 0.9
set style line 2 linecolor rgb '#D55E00' linewidth 2 dashtype 2 pointtype 5 pointsize 0.9
set style line 3 linecolor rgb '#444444' linewidth 1.5 dashtype 4
set style line 4 linecolor rgb '#999999' linewidth 1 dashtype 1
# a ring around the load points at or past a run's saturation point
set style line 5 linecolor rgb '#444444' linewidth 1.5 pointtype 6 pointsize 2.2
# a triangle around the load points whose achieved rate fell short because requests
# failed: failures, not overload (never ringed as saturated)
set style line 6 linecolor rgb '#444444' linewidth 1.5 pointtype 8 pointsize 2.2
set grid linestyle 4 linewidth 0.5 linecolor rgb '#e0e0e0'
set border linecolor rgb '#444444'
set key top left box opaque samplen 3
set tics nomirror
# A log y axis labelled at 1-2-3-4-5-...-9, 1-2-3-5, 1-2-5 or 1 of each decade, the finest
# whose labels stay apart (18 px), with unlabelled minor tics at every other whole step, so
# that values between decades read off the axis (gnuplot's own labels only the decades:
# 10000, 100000). Set tic_lo and tic_hi (the axis' range, 0 < tic_lo < tic_hi) and tic_px
# (the plot's height in pixels), then `eval set_log_ytics`. One procedure for every chart
# with log panels (latency_throughput, treatments_latency_throughput).
log_tic_text(v) = v >= 1 ? sprintf("%.0f", v) : sprintf("%g", v)
log_tic_on(d, level) = level == 9 ? 1 : (level == 4 ? (d == 1 || d == 2 || d == 3 || d == 5) : \
  (level == 3 ? (d == 1 || d == 2 || d == 5) : d == 1))
set_log_ytics = "tic_ppd = tic_px / (log10(tic_hi) - log10(tic_lo)); " . \
  "tic_level = tic_ppd * log10(10.0 / 9) >= 18 ? 9 : (tic_ppd * log10(1.5) >= 18 ? 4 : " . \
  "(tic_ppd * log10(2.0) >= 18 ? 3 : 1)); set ytics (); " . \
  "do for [tic_e = int(floor(log10(tic_lo))):int(floor(log10(tic_hi)))] { do for [tic_d = 1:9] { " . \
  "tic_v = tic_d * 10.0 ** tic_e; if (tic_v >= tic_lo && tic_v <= tic_hi) { " . \
  "if (log_tic_on(tic_d, tic_level)) { set ytics add (log_tic_text(tic_v) tic_v) } " . \
  "else { set ytics add ('' tic_v 1) } } } }"
