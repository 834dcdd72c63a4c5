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
# how many rows the key takes (a treatment drawn in no panel has no entry): as many columns
# side by side as the widest entry allows, at what gnuplot's SVG terminal reckons at 12 pt
# (as latency_throughput.gp, fixh47): 8.4 px a character, 3 characters of padding and the
# 34 px sample (columns 8.39 * len + 59.4 px apart in its output); the key gets the strip's
# whole width (no margins there) and at most key_cols columns, so gnuplot draws the rows
# reserved here (3 columns were assumed: 60-character labels drew 4 rows in 1 column where
# 2 were reserved, over the last panel's x label)
key_max(a, b) = a > b ? a : b
key_n = 0
key_len = 0
do for [t = 1:k] {
  if (has[t]) {
    key_n = key_n + 1
    key_len = key_max(key_len, strlen(labels[t]))
  }
}
key_cols = int(w / (8.4 * key_len + 60))
key_cols = key_cols < 1 ? 1 : key_cols
key_rows = int((key_n + key_cols - 1) / key_cols)
if (!exists("title_lines")) { title_lines = 1 }
h = 260 * n + 60 + 22 * key_rows + 20 * (title_lines - 1)
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
bottom = (22.0 * key_rows + 20) / h
ph = (1 - top - bottom) / n
set lmargin 12  # room for a 6-digit log tic (100000) and the label left of it
set rmargin 3
set bmargin 3.5
unset key
set yrange [0:100]
# (x: the latency on the panel's x axis. "share of requests at or below (%)", printed at the
# 125 % text the report allows, ran past its 260-px panel into the next one and the title)
set ylabel 'requests ≤ x (%)'
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
set lmargin 0
set rmargin 0
set tmargin 0
set bmargin 0
set xrange [0:1]
set yrange [0:1]
set key center center horizontal maxcols key_cols maxrows key_rows noopaque nobox
plot for [t = 1:k] NaN with lines linestyle 10 + t title (has[t] ? labels[t] : '')
unset multiplot
