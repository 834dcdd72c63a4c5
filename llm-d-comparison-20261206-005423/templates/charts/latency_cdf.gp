# Latency distributions: for each latency, the share of requests (or token gaps) at or
# below each value, one line per run. gnuplot writes the SVG on its standard output.
#
# From llmdlua: datafile (columns: percentile, TTFT, TPOT, ITL, E2E in ms; block 0 is
# run A, block 1 run B), style_file, title, label_a, label_b, and per panel i:
# panel_col[i], panel_label[i] (the x label), panel_ylabel[i], panel_log[i] (1: log x,
# when the values span more than a factor of 20), panel_has_a[i] / panel_has_b[i].
n = |panel_col|
cols = (n > 1) ? 2 : 1
rows = (n + cols - 1) / cols
set terminal svg noenhanced dynamic size 900, 320 * rows + 80 font 'sans,12'
load style_file
set multiplot layout rows, cols title title font 'sans,15'
set yrange [0:100]
set ytics 0, 25, 100
set key bottom right
do for [i = 1:n] {
  set xlabel panel_label[i]
  set ylabel panel_ylabel[i]
  if (panel_log[i]) { set logscale x } else { unset logscale x }
  plot datafile index 0 using (column(panel_col[i])):1 with lines linestyle 1 \
         title (panel_has_a[i] ? label_a : ''), \
       datafile index 1 using (column(panel_col[i])):1 with lines linestyle 2 \
         title (panel_has_b[i] ? label_b : '')
}
unset multiplot
