# N treatments: latency against achieved request rate, one panel per latency metric, one
# line per treatment (its load points in order of achieved rate).
# gnuplot writes the SVG on its standard output (no `set output`).
#
# From llmdlua: datafile (columns: achieved req/s, then one column per panel; block i-1 is
# treatment i), style_file, title, labels[i] (treatment names), panel_col[i],
# panel_label[i], panel_log[i] (1: log y), slo[i] (the panel's SLO threshold in ms, NaN
# when none), xmax (the x axis runs from 0 to it), ymin[i] / ymax[i] (panel i's y range,
# its SLO inside; NaN: gnuplot's own), title_lines (the lines of the title, 1 when absent),
# xlabel (the x axis' label: per GPU where the treatments' GPU counts differ; absent: totals);
# saturated (1: some point is at or past its treatment's saturation point, column 5 is 1
# there: ringed, as the two-run chart rings it), failures (1: some point's achieved rate fell
# short from failed requests, column 6: a triangle); per treatment t: cap[t] (its capacity at
# the SLOs, an estimate: a dotted line in its colour; NaN none), bound[t] and bound_dir[t] (a
# capacity that is only a bound: a dashed line with an arrow the way it may lie, >= right
# for a lower bound (1), < left for an upper one (-1); NaN / 0 none).
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
if (!exists("saturated")) { saturated = 0 }
if (!exists("failures")) { failures = 0 }
cap_any = 0
bnd_lo = 0
bnd_hi = 0
if (exists("cap")) {
  do for [t = 1:k] {
    if (cap[t] == cap[t]) { cap_any = 1 }
    if (bound[t] == bound[t] && bound_dir[t] > 0) { bnd_lo = 1 }
    if (bound[t] == bound[t] && bound_dir[t] < 0) { bnd_hi = 1 }
  }
}
key_sat = saturated ? 'saturated' : ''
key_fail = failures ? 'failed requests, not marked saturated' : ''
key_cap = cap_any ? 'capacity at SLO (estimate)' : ''
key_lo = bnd_lo ? 'capacity at least (lower bound)' : ''
key_hi = bnd_hi ? 'capacity below (upper bound)' : ''
kk = k + slo_any + saturated + failures + cap_any + bnd_lo + bnd_hi
w = 900
# how many rows the key takes: gnuplot puts as many columns side by side as the widest
# entry allows, so long treatment labels stack it up; the strip under the panels grows to
# hold them all, never over the last panel's x label. A column is what gnuplot's SVG
# terminal reckons at 12 pt (as latency_throughput.gp, fixh47): 8.4 px a character, 3
# characters of padding and the 34 px sample (columns 8.39 * len + 59.4 px apart in its
# output); the key gets the strip's whole width (no margins there) and at most key_cols
# columns, so gnuplot draws the rows reserved here (2 columns were assumed: 60-character
# labels drew 6 rows in 1 column where 3 were reserved, over the x label)
key_max(a, b) = a > b ? a : b
key_len = 0
do for [t = 1:k] { key_len = key_max(key_len, strlen(labels[t])) }
do for [s in "key_slo key_sat key_fail key_cap key_lo key_hi"] { key_len = key_max(key_len, strlen(value(s))) }
key_cols = int(w / (8.4 * key_len + 60))
key_cols = key_cols < 1 ? 1 : key_cols
key_rows = int((kk + key_cols - 1) / key_cols)
if (!exists("title_lines")) { title_lines = 1 }
h = 260 * n + 60 + 22 * key_rows + 20 * (title_lines - 1)
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
bottom = (22.0 * key_rows + 20) / h
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
  # headroom above the highest value where points are ringed (saturated): a ring at the top
  # value was cut by the frame; about a sixth of the height, in the axis' own scale
  head = saturated ? 0.15 : 0
  ytop = NaN
  if (exists("ymax")) {
    if (ymax[i] == ymax[i]) { ytop = ymax[i] }
    if (ymax[i] == ymax[i] && ymin[i] == ymin[i] && ymax[i] > ymin[i]) {
      ytop = (panel_log[i] && ymin[i] > 0) ? ymax[i] * (ymax[i] / ymin[i]) ** (head / (1 - head)) \
        : ymax[i] + (ymax[i] - ymin[i]) * head / (1 - head)
    }
  }
  if (panel_log[i] && exists("ymin")) {
    if (ymin[i] == ymin[i] && ymax[i] == ymax[i] && ymin[i] > 0 && ymax[i] > ymin[i]) {
      # (style.gp's set_log_ytics; the plot's height: the panel's less its margins, about 70 px)
      tic_lo = ymin[i]
      tic_hi = ytop
      tic_px = ph * h - 70
      eval set_log_ytics
    }
  }
  if (exists("xmax")) { set xrange [0:xmax] }
  set autoscale y
  if (exists("ymin")) {
    if (ymin[i] == ymin[i]) { set yrange [ymin[i]:] }
    if (ytop == ytop) { set yrange [:ytop] }
  }
  unset arrow
  unset label
  if (slo[i] == slo[i]) {
    set arrow from graph 0, first slo[i] to graph 1, first slo[i] nohead linestyle 3 front
  }
  # each treatment's capacity: an estimate dotted, a bound dashed with an arrow (at the foot,
  # in a lane of its own) the way the capacity may lie, labelled >= or <
  if (exists("cap")) {
    do for [t = 1:k] {
      col = colours[(t - 1) % 8 + 1]
      if (cap[t] == cap[t]) {
        set arrow (40 + t) from first cap[t], graph 0 to first cap[t], graph 1 nohead linecolor rgb col \
          linewidth 1 dashtype 3
      }
      if (bound[t] == bound[t] && bound_dir[t] != 0) {
        yb = 0.06 + 0.07 * ((t - 1) % 5)
        set arrow (100 + t) from first bound[t], graph 0 to first bound[t], graph 1 nohead linecolor rgb col \
          linewidth 1.5 dashtype 2 front
        set arrow (200 + t) from first bound[t], graph yb rto graph 0.08 * bound_dir[t], graph 0 \
          head size screen 0.008, 25 linecolor rgb col linewidth 2 dashtype 1 front
        set label (100 + t) (bound_dir[t] > 0 ? '≥' : '<') at first bound[t], graph yb \
          offset (bound_dir[t] > 0 ? -1.2 : 0.4), 0 textcolor rgb col font 'sans,13' front
      }
    }
  }
  cmd = "plot for [t = 1:k] datafile index (t - 1) using 1:(column(panel_col[i])) with linespoints " \
    . "linestyle 10 + t notitle"
  if (saturated) {
    cmd = cmd . ", datafile using 1:(column(5) > 0 ? column(panel_col[i]) : 1/0) with points linestyle 5 notitle"
  }
  if (failures) {
    cmd = cmd . ", datafile using 1:(column(6) > 0 ? column(panel_col[i]) : 1/0) with points linestyle 6 notitle"
  }
  eval cmd
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
set lmargin 0
set rmargin 0
set tmargin 0
set bmargin 0
set xrange [0:1]
set yrange [0:1]
set key center center horizontal maxcols key_cols maxrows key_rows noopaque nobox
plot for [t = 1:k] NaN with linespoints linestyle 10 + t title labels[t], NaN with lines linestyle 3 title key_slo, \
  NaN with points linestyle 5 title key_sat, NaN with points linestyle 6 title key_fail, \
  NaN with lines linecolor rgb '#444444' linewidth 1 dashtype 3 title key_cap, \
  '+' using (NaN):(NaN):(NaN):(NaN) with vectors linecolor rgb '#444444' linewidth 2 dashtype 2 title key_lo, \
  '+' using (NaN):(NaN):(NaN):(NaN) with vectors linecolor rgb '#444444' linewidth 2 dashtype 2 title key_hi
unset multiplot
