# N treatments that measured one load point each: no curve to draw, so one panel per
# metric that decides the comparison (the SLOs' metrics, else TTFT and TPOT at p95), each
# treatment's value side by side with the repeats' 95 % confidence interval of its mean
# as an error bar. gnuplot writes the SVG on its standard output (no `set output`).
#
# From llmdlua: datafile (block i-1 is panel i, one row per treatment in order; columns:
# x (the treatment's number), value, the interval's lower and upper ends (the value itself
# where there is none; NaN all three where the treatment has no value), has_ci (1: an
# interval)), style_file, title, title_lines (the
# lines of the title, 1 when absent), labels[t] (the treatments' names) and loads[t]
# (each one's load: "3.6 req/s offered, 3 repeats"); per panel i: panel_label[i]
# ("TTFT p95 (ms)"), panel_slo[i] (the SLO threshold, NaN when none or too far above the
# values to draw), panel_ymax[i] (the top of its y axis, from 0), panel_fmt[i] (the
# printf format of its figures, the metric catalogue's: '%.1f' for ms); tic_rotate (0, or
# 45 where the names would run into each other), tic_room (the lines they take then) and
# tics[t] (each one's name and load in lines, a long name broken so that, rotated, it stays
# inside the picture).
n = |panel_label|
k = |labels|
w = 160 * k + 140
w = w < 640 ? 640 : w
if (!exists("title_lines")) { title_lines = 1 }
if (!exists("tic_rotate")) { tic_rotate = 0 }
if (!exists("tic_room")) { tic_room = 0 }
h = (300 + 19 * tic_room) * n + 60 + 20 * (title_lines - 1)
set terminal svg noenhanced dynamic size w, h font 'sans,12'
load style_file
# one colour and marker per treatment (Okabe-Ito, as the curve chart's), repeated past eight
array colours[8] = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442']
do for [t = 1:k] {
  set style line 10 + t linecolor rgb colours[(t - 1) % 8 + 1] linewidth 2 pointtype (t - 1) % 12 + 4 pointsize 1
}
set multiplot title title font 'sans,15'
top = (40.0 + 20 * (title_lines - 1)) / h
ph = (1 - top) / n
set lmargin 11
set rmargin 3
set tmargin 1
set bmargin 4 + tic_room
set bars 3
unset key
set xrange [0.4:k + 0.6]
# under each treatment its name and load, on two lines
set xtics () scale 0 font 'sans,10'
if (tic_rotate) { set xtics rotate by tic_rotate right } else { set xtics norotate }
# (tics[t]: the name and load as llmdlua broke them into lines; older callers: labels and loads)
if (exists("tics")) { do for [t = 1:k] { set xtics add (tics[t] t) } } else { do for [t = 1:k] { set xtics add (labels[t]."\n".loads[t] t) } }
set grid noxtics ytics
do for [i = 1:n] {
  set origin 0, (n - i) * ph
  set size 1, ph
  set ylabel panel_label[i]
  set yrange [0:panel_ymax[i]]
  unset arrow
  if (panel_slo[i] == panel_slo[i]) {
    set arrow from graph 0, first panel_slo[i] to graph 1, first panel_slo[i] nohead linestyle 3 front
  }
  fmt_ci = panel_fmt[i].' ('.panel_fmt[i].'–'.panel_fmt[i].')'
  # the interval as an error bar with caps, only where there is one (has_ci: else a cap
  # through the dot read as an interval of width 0), the value as the treatment's marker; above it
  # the value and its interval in figures (a narrow interval hides behind the marker); a
  # treatment without the value (NaN) gets "N/A" at the axis. valid(2), not $2 == $2: a NaN
  # read through $2 leaves a labels plot no valid point, and gnuplot 5.4 crashes on that
  # (as latency_points.gp found)
  plot for [t = 1:k] datafile index (i - 1) every ::(t - 1)::(t - 1) using 1:($5 > 0 ? $2 : NaN):3:4 \
         with yerrorbars linestyle 10 + t notitle, \
       for [t = 1:k] datafile index (i - 1) every ::(t - 1)::(t - 1) using 1:2 with points linestyle 10 + t \
         notitle, \
       for [t = 1:k] datafile index (i - 1) every ::(t - 1)::(t - 1) \
         using 1:(valid(2) ? $4 : 0):(!valid(2) ? 'N/A' : $5 > 0 ? sprintf(fmt_ci, $2, $3, $4) : \
           sprintf(panel_fmt[i], $2)) \
         with labels center offset 0, 1.2 textcolor rgb colours[(t - 1) % 8 + 1] notitle
}
unset multiplot
