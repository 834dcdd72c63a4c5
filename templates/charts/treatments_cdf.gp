# N treatments: per-request latency distributions (CDF), one panel per latency, one line
# per treatment.
#
# From llmdlua: datafile (columns: percentile, then one column per panel; block i-1 is
# treatment i, NaN in a panel it is not drawn in), style_file, title, labels[i], has[i] (1:
# the treatment is drawn in some panel), panel_col[i], panel_label[i] (the latency and the
# loads pooled), panel_log[i] (1: log x); title_lines (the lines of the title, 1 when
# absent).
n = |panel_col|
k = |labels|
w = 900
if (!exists("title_lines")) { title_lines = 1 }
h = 260 * n + 60 + 22 * ((k + 2) / 3) + 20 * (title_lines - 1)
set terminal svg noenhanced dynamic size w, h font 'sans,12'
load style_file
array colours[8] = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442']
do for [t = 1:k] {
  dt = (t - 1) % 5 + 1
  ls = 10 + t
  set style line ls linecolor rgb colours[(t - 1) % 8 + 1] linewidth 2 dashtype dt
}
set multiplot title title font 'sans,15'
top = (40.0 + 20 * (title_lines - 1)) / h
bottom = (22.0 * ((k + 2) / 3) + 20) / h
ph = (1 - top - bottom) / n
set lmargin 12  # room for a 6-digit log tic (100000) and the label left of it
set rmargin 3
set bmargin 3.5
unset key
set yrange [0:100]
set ylabel 'share of requests at or below (%)'
do for [i = 1:n] {
  set origin 0, bottom + (n - i) * ph
  set size 1, ph
  set xlabel panel_label[i]
  if (panel_log[i]) { set logscale x } else { unset logscale x }
  plot for [t = 1:k] datafile index (t - 1) using (column(panel_col[i])):1 with lines linestyle 10 + t notitle
}
set origin 0, 0
set size 1, bottom
unset border
unset tics
unset xlabel
unset ylabel
unset grid
unset logscale
set xrange [0:1]
set yrange [0:1]
set key center center horizontal maxrows (k + 2) / 3 noopaque nobox
plot for [t = 1:k] NaN with lines linestyle 10 + t title (has[t] ? labels[t] : '')
unset multiplot
