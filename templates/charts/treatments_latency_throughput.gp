# N treatments: latency against achieved request rate, one panel per latency metric, one
# line per treatment (its load points in order of achieved rate).
# gnuplot writes the SVG on its standard output (no `set output`).
#
# From llmdlua: datafile (columns: achieved req/s, then one column per panel; block i-1 is
# treatment i), style_file, title, labels[i] (treatment names), panel_col[i],
# panel_label[i], panel_log[i] (1: log y), slo[i] (the panel's SLO threshold in ms, NaN
# when none), xmax (the x axis runs from 0 to it), ymin[i] / ymax[i] (panel i's y range,
# its SLO inside; NaN: gnuplot's own), title_lines (the lines of the title, 1 when absent),
# xlabel (the x axis' label: per GPU where the treatments' GPU counts differ; absent: totals).
# A log panel whose range is known labels its tics at 1-2-3-4-5-...-9, 1-2-3-5, 1-2-5 or 1
# of each decade, the finest whose labels stay apart (18 px), with unlabelled minor tics at
# every other whole step: values between decades read off the axis (style.gp's
# set_log_ytics, as the two-run latency_throughput chart's).
n = |panel_col|
k = |labels|
# an SLO in a panel: a dotted line there, and an entry of its own in the key
slo_any = 0
do for [i = 1:n] { if (slo[i] == slo[i]) { slo_any = 1 } }
key_slo = slo_any ? 'SLO threshold' : ''
kk = k + slo_any
w = 900
if (!exists("title_lines")) { title_lines = 1 }
h = 260 * n + 60 + 22 * ((kk + 2) / 3) + 20 * (title_lines - 1)
set terminal svg noenhanced dynamic size w, h font 'sans,12'
load style_file
# one colour, dash and marker per treatment (Okabe-Ito), repeated past eight
array colours[8] = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442']
do for [t = 1:k] {
  dt = (t - 1) % 5 + 1
  pt = (t - 1) % 12 + 4
  ls = 10 + t
  set style line ls linecolor rgb colours[(t - 1) % 8 + 1] linewidth 2 dashtype dt pointtype pt pointsize 0.9
}
set multiplot title title font 'sans,15'
top = (40.0 + 20 * (title_lines - 1)) / h
bottom = (22.0 * ((kk + 2) / 3) + 20) / h
ph = (1 - top - bottom) / n
set lmargin 12  # room for a 6-digit log tic (100000) and the label left of it
set rmargin 3
set bmargin 3.5
unset key
do for [i = 1:n] {
  set origin 0, bottom + (n - i) * ph
  set size 1, ph
  set xlabel (exists("xlabel") ? xlabel : 'achieved request rate (req/s)')
  set ylabel panel_label[i]
  if (panel_log[i]) { set logscale y } else { unset logscale y }
  set ytics autofreq
  if (panel_log[i] && exists("ymin")) {
    if (ymin[i] == ymin[i] && ymax[i] == ymax[i] && ymin[i] > 0 && ymax[i] > ymin[i]) {
      # (style.gp's set_log_ytics; the plot's height: the panel's less its margins, about 70 px)
      tic_lo = ymin[i]
      tic_hi = ymax[i]
      tic_px = ph * h - 70
      eval set_log_ytics
    }
  }
  if (exists("xmax")) { set xrange [0:xmax] }
  set autoscale y
  if (exists("ymin")) {
    if (ymin[i] == ymin[i]) { set yrange [ymin[i]:] }
    if (ymax[i] == ymax[i]) { set yrange [:ymax[i]] }
  }
  unset arrow
  if (slo[i] == slo[i]) {
    set arrow from graph 0, first slo[i] to graph 1, first slo[i] nohead linestyle 3 front
  }
  plot for [t = 1:k] datafile index (t - 1) using 1:(column(panel_col[i])) with linespoints linestyle 10 + t notitle
}
set origin 0, 0
set size 1, bottom
unset border
unset tics
unset xlabel
unset ylabel
unset arrow
unset grid
unset logscale
set xrange [0:1]
set yrange [0:1]
set key center center horizontal maxrows (kk + 2) / 3 noopaque nobox
plot for [t = 1:k] NaN with linespoints linestyle 10 + t title labels[t], NaN with lines linestyle 3 title key_slo
unset multiplot
