# KV-cache usage and prefix-cache hit rate over the run, from vLLM's raw scrapes, one
# line per run. gnuplot writes the SVG on its standard output.
#
# From llmdlua: datafile (columns: seconds since the run's first scrape, usage %, hit
# rate % over the interval; block 0 is run A, block 1 run B), style_file, title,
# label_a, label_b, and per panel i: panel_col[i], panel_label[i], panel_has_a[i],
# panel_has_b[i].
n = |panel_col|
set terminal svg noenhanced dynamic size 900, 260 * n + 80 font 'sans,12'
load style_file
set multiplot layout n, 1 title title font 'sans,15'
set lmargin 12
set xlabel 'time since the first scrape (s)'
set yrange [0:*]
set key outside top center horizontal nobox
do for [i = 1:n] {
  set ylabel panel_label[i]
  plot datafile index 0 using 1:(column(panel_col[i])) with linespoints linestyle 1 \
         title (panel_has_a[i] ? label_a : ''), \
       datafile index 1 using 1:(column(panel_col[i])) with linespoints linestyle 2 \
         title (panel_has_b[i] ? label_b : '')
}
unset multiplot
