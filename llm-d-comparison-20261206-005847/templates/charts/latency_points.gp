# The latency chart of two runs that measured one load point each: no curve to draw, so
# one panel per metric that decides the comparison (the SLOs' metrics, else TTFT and TPOT
# at p95), each run's value side by side with the repeats' 95 % confidence interval of
# its mean as an error bar. gnuplot writes the SVG on its standard output (no `set output`).
#
# From llmdlua: datafile (blocks in pairs, one pair per panel: run A's row, then run B's;
# columns: x (1 for A, 2 for B), value, the interval's lower and upper ends (the value
# itself where there is none), has_ci (1: an interval)), style_file, title, label_a,
# label_b; run_a / run_b (the runs' labels, shortened to fit under a panel), load_a /
# load_b (each run's load: "3.6 req/s offered, 3 repeats"); per panel i: panel_label[i]
# ("TTFT p95 (ms)"), panel_slo[i] (the SLO threshold, NaN when none or too far above the
# values to draw), panel_ymax[i] (the top of its y axis, from 0), panel_fmt[i] (the
# printf format of its figures, the metric catalogue's: '%.1f' for ms).
n = |panel_label|
w = 400 * n + 80
w = w < 640 ? 640 : w
h = 560
set terminal svg noenhanced dynamic size w, h font 'sans,12'
load style_file
set multiplot title title font 'sans,15'
top = 40.0 / h
bottom = 60.0 / h
pw = 1.0 / n
set lmargin 11
set rmargin 2
set tmargin 1
set bmargin 5
set bars 3
set xrange [0.4:2.6]
set xtics (run_a."\n".load_a 1, run_b."\n".load_b 2) scale 0 font 'sans,10'
set grid noxtics ytics
slo_any = 0
do for [i = 1:n] {
  if (panel_slo[i] == panel_slo[i]) { slo_any = 1 }
}
# the key under the panels, once: the runs' markers, and the SLO line where a panel has one
set key at screen 0.5, screen (bottom / 2) center center horizontal maxrows 1 nobox
do for [i = 1:n] {
  set origin (i - 1.0) * pw, bottom
  set size pw, 1 - top - bottom
  set ylabel panel_label[i]
  set yrange [0:panel_ymax[i]]
  unset arrow
  if (panel_slo[i] == panel_slo[i]) {
    set arrow from graph 0, first panel_slo[i] to graph 1, first panel_slo[i] nohead linestyle 3 front
  }
  fmt_ci = panel_fmt[i].' ('.panel_fmt[i].'–'.panel_fmt[i].')'
  a = 2 * (i - 1)
  b = a + 1
  # the interval as an error bar with caps, only where there is one (has_ci: a bar from the
  # value to itself drew a cap through the dot, which read as an interval of width 0); the
  # value as the run's marker; above it the value and its interval in figures (a narrow
  # interval hides behind the marker); a run without the value (NaN) gets "N/A" at the
  # axis. valid(2), not $2 == $2: a NaN read through $2 leaves a labels plot no valid point,
  # and gnuplot 5.4 crashes on that.
  plot datafile index a using 1:($5 > 0 ? $2 : NaN):3:4 with yerrorbars linestyle 1 pointsize 1 notitle, \
       datafile index b using 1:($5 > 0 ? $2 : NaN):3:4 with yerrorbars linestyle 2 pointsize 1 notitle, \
       datafile index a using 1:2 with points linestyle 1 pointsize 1 title (i == 1 ? label_a : ''), \
       datafile index b using 1:2 with points linestyle 2 pointsize 1 title (i == 1 ? label_b : ''), \
       datafile index a using 1:(valid(2) ? $4 : 0):(!valid(2) ? 'N/A' : $5 > 0 ? \
         sprintf(fmt_ci, $2, $3, $4) : sprintf(panel_fmt[i], $2)) \
         with labels center offset 0, 1.2 textcolor rgb color_a notitle, \
       datafile index b using 1:(valid(2) ? $4 : 0):(!valid(2) ? 'N/A' : $5 > 0 ? \
         sprintf(fmt_ci, $2, $3, $4) : sprintf(panel_fmt[i], $2)) \
         with labels center offset 0, 1.2 textcolor rgb color_b notitle, \
       NaN with lines linestyle 3 title (i == 1 && slo_any ? 'SLO threshold' : '')
}
unset multiplot
