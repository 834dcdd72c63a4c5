# Latency against achieved throughput: one row of panels per latency percentile, one
# column per throughput (output tok/s, req/s), one line per run, one key under them all.
# gnuplot writes the SVG on its standard output (no `set output`).
#
# From llmdlua: datafile (columns: output tok/s, achieved req/s, then one latency column
# per panel, offered load; block 0 is run A, block 1 run B), style_file, title, label_a,
# label_b; per x axis j: x_col[j] (its column), x_label[j], cap_a[j] / cap_b[j] (each
# run's capacity at the SLOs on that axis, an estimate interpolated between two load
# points, NaN when there is none), cap_a_lo[j] / cap_a_hi[j] and cap_b_lo[j] / cap_b_hi[j]
# (the range around it, shaded, as the Headline gives it: with repeats at every load point
# the range the repeats allow, else the measured bracket, the last load that met the SLOs
# and the first that failed one; the capacity is known only within it), cap_a_open[j] /
# cap_b_open[j] (1: the range has no upper end, the band reaches the right edge), bound_a[j] /
# bound_b[j] (a capacity that is only a bound, on that axis, NaN when it is none) with
# bound_a_dir / bound_b_dir (1: a lower bound, "at least", marked >= with an arrow to the
# right; -1: an upper one, "below", < with an arrow to the left), band_a /
# band_b (the key's name of each run's band); per panel i: panel_col[i]
# (its column), panel_label[i], panel_log[i] (1: log y), panel_slo[i] (the SLO
# threshold in ms, NaN when none or too far from the values to draw; the axis stretches
# to it), panel_ymin[i] / panel_ymax[i] (a log panel's y range, its values and SLO inside:
# llmd.charts.log_range; NaN: gnuplot's own), panel_has_a[i] / panel_has_b[i] (does the run have
# values); saturated (1: some load point is at or past its run's saturation point, column
# 7 is 1 there: ringed, as in the achieved-offered chart and the ladder's Saturated column);
# failures (1: some load point's achieved rate fell short because requests failed, not from
# overload, column 8 is 1 there: a triangle, never a ring, as the tables say); intervals (1:
# some point has its repeats' 95 % interval: columns 9-14, panel i's ends in 7 + 2i and
# 8 + 2i, NaN where none, drawn as a bar on the point).
n = |panel_col|
m = |x_col|
w = 560 * m + 100
if (!exists("saturated")) { saturated = 0 }
if (!exists("failures")) { failures = 0 }
if (!exists("intervals")) { intervals = 0 }
# the key's entries, known before the canvas is sized: each run's band by its name (the
# range its repeats allow, or its measured bracket), the SLO line where a panel has one
band_name_a = exists("band_a") ? band_a : 'measured bracket'
band_name_b = exists("band_b") ? band_b : 'measured bracket'
band_any_a = 0
band_any_b = 0
if (exists("cap_a_lo")) {
  do for [j = 1:m] {
    if (cap_a_lo[j] == cap_a_lo[j]) { band_any_a = 1 }
    if (cap_b_lo[j] == cap_b_lo[j]) { band_any_b = 1 }
  }
}
has_a = 0
has_b = 0
slo_any = 0
do for [i = 1:n] {
  if (panel_has_a[i]) { has_a = 1 }
  if (panel_has_b[i]) { has_b = 1 }
  if (panel_slo[i] == panel_slo[i]) { slo_any = 1 }
}
key_a = has_a ? label_a : ''
key_b = has_b ? label_b : ''
key_slo = slo_any ? 'SLO threshold' : ''
key_cap_a = cap_a[1] == cap_a[1] ? 'capacity at SLO (estimate), '.label_a : ''
key_cap_b = cap_b[1] == cap_b[1] ? 'capacity at SLO (estimate), '.label_b : ''
# a capacity that is only a bound: in the key as what it is ("capacity at least", "below")
if (!exists("bound_a_dir")) { bound_a_dir = 0 }
if (!exists("bound_b_dir")) { bound_b_dir = 0 }
bound_word(d) = d > 0 ? 'capacity at least (lower bound), ' : 'capacity below (upper bound), '
key_bnd_a = bound_a_dir != 0 ? bound_word(bound_a_dir).label_a : ''
key_bnd_b = bound_b_dir != 0 ? bound_word(bound_b_dir).label_b : ''
key_band_a = band_any_a ? 'capacity lies within: '.band_name_a.', '.label_a : ''
key_band_b = band_any_b ? 'capacity lies within: '.band_name_b.', '.label_b : ''
key_sat = saturated ? 'saturated' : ''
key_fail = failures ? 'failed requests, not marked saturated' : ''
# how many rows the key takes: gnuplot puts as many columns side by side as the widest
# entry allows, so long run labels (the folder names) stack it up; the strip under the
# panels grows to hold them all, never over the last panels' axis labels. A column is what
# gnuplot's SVG terminal reckons at 12 pt: 8.4 px a character (0.7 em), 3 characters of
# padding and the 34 px sample, measured from its output (columns 8.39 * len + 59.4 px
# apart); the key gets the strip's whole width (no margins there) and at most key_cols
# columns, so gnuplot draws the rows reserved here
key_n = 0
key_len = 0
key_count(s) = strlen(s) > 0 ? 1 : 0
key_max(a, b) = a > b ? a : b
do for [s in "key_a key_b key_slo key_cap_a key_cap_b key_bnd_a key_bnd_b key_band_a key_band_b key_sat key_fail"] {
  key_n = key_n + key_count(value(s))
  key_len = key_max(key_len, strlen(value(s)))
}
key_cols = int(w / (8.4 * key_len + 60))
key_cols = key_cols < 1 ? 1 : key_cols
key_rows = int((key_n + key_cols - 1) / key_cols)
bottom_px = key_max(100, 40 + 20 * key_rows)
h = 250 * n + 50 + bottom_px
set terminal svg noenhanced dynamic size w, h font 'sans,12'
load style_file
set multiplot title title font 'sans,15'
top = 40.0 / h           # the title
bottom = bottom_px * 1.0 / h   # the key (its rows)
ph = (1 - top - bottom) / n
set lmargin 12  # room for a 6-digit log tic (100000) and the label left of it
set rmargin 3
set tmargin 1
set bmargin 3.5
unset key
do for [i = 1:n] {
  do for [j = 1:m] {
    set origin (j - 1.0) / m, bottom + (n - i) * ph
    set size 1.0 / m, ph
    set xlabel x_label[j]
    set ylabel panel_label[i]
    if (panel_log[i]) { set logscale y } else { unset logscale y }
    # a log panel whose range is known: that range, its tics labelled 1-2-5 (or finer) in
    # each decade (style.gp's set_log_ytics, as treatments_latency_throughput's), never
    # gnuplot's decades alone (10000, 100000), between which no value can be read
    set ytics autofreq
    set autoscale y
    # a linear latency axis starts at 0, as the treatments' chart's do: a gap is seen against
    # the whole latency (gnuplot's own range, 22.4 to 23.3 ms, drew a 0.9-ms, 4 % gap in
    # TPOT as a large one); values that span decades are drawn on a log axis instead
    if (!panel_log[i]) { set yrange [0:*] }
    # headroom above the highest value where points are ringed (saturated) or a range's
    # bracket runs along the top: a ring at the top value was cut by the frame and drawn
    # under the brackets' lanes (newuser43's demo TTFT panels); about a fifth of the height
    head = (saturated || band_any_a || band_any_b) ? 0.2 : 0
    # room beside a bound for its line and arrow (a lower bound's to the right, an upper
    # one's to the left): at the last load measured, as a run never violated the SLO, the
    # line lay on the frame, hidden, and its arrow was drawn outside the plot (newuser44)
    pad_l = 0
    pad_r = 0
    if (exists("bound_a")) {
      do for [k = 1:2] {
        bv = k == 1 ? bound_a[j] : bound_b[j]
        bd = k == 1 ? bound_a_dir : bound_b_dir
        if (bv == bv && bd > 0) { pad_r = 0.12 }
        if (bv == bv && bd < 0) { pad_l = 0.12 }
      }
    }
    set offsets graph pad_l, graph pad_r, graph head, 0
    if (panel_log[i] && exists("panel_ymin") && exists("set_log_ytics")) {
      if (panel_ymin[i] == panel_ymin[i] && panel_ymax[i] == panel_ymax[i] && panel_ymin[i] > 0 \
        && panel_ymax[i] > panel_ymin[i]) {
        # (a fixed log range takes no offsets: its top raised by the same share of its decades)
        ytop = panel_ymax[i] * (panel_ymax[i] / panel_ymin[i]) ** (head / (1 - head))
        set yrange [panel_ymin[i]:ytop]
        # (the plot's height: the panel's less its margins, about 70 px)
        tic_lo = panel_ymin[i]
        tic_hi = ytop
        tic_px = ph * h - 70
        eval set_log_ytics
      }
    }
    unset arrow
    unset object
    unset label
    # the ranges: each run's as a bracket |---| of its own in a lane along the top of the
    # panel (A's above B's) in its colour, over a faint tint of the whole height; the estimate
    # inside as a dotted line. A bracket, never a filled bar (a bar there read as one more data
    # series), named in the key by a bracket of its own ("capacity lies within: measured
    # bracket, A"), never in the panel: a name there, right of nothing gnuplot can measure
    # before it plots, ran onto the y axis's tick labels ("5000(") and over the saturated
    # points at the top of a log TTFT panel (verify42). Two ranges that overlap stay two
    # brackets that can be read apart, never one grey wash
    if (exists("cap_a_lo")) {
      do for [k = 1:2] {
        lo = k == 1 ? cap_a_lo[j] : cap_b_lo[j]
        hi = k == 1 ? cap_a_hi[j] : cap_b_hi[j]
        open = k == 1 ? cap_a_open[j] : cap_b_open[j]
        col = k == 1 ? color_a : color_b
        yl = 1.0 - 0.05 * k
        if (lo == lo && (open || hi == hi)) {
          # (an open range: to the right edge, its one end barred)
          if (open) {
            set object (2 * k - 1) rectangle from first lo, graph 0 to graph 1, graph 1 behind \
              fillcolor rgb col fillstyle transparent solid 0.05 noborder
            set arrow (20 + k) from first lo, graph yl to graph 1, graph yl backhead size screen 0.006, 90 \
              linecolor rgb col linewidth 2 dashtype 1 front
          } else {
            set object (2 * k - 1) rectangle from first lo, graph 0 to first hi, graph 1 behind \
              fillcolor rgb col fillstyle transparent solid 0.05 noborder
            set arrow (20 + k) from first lo, graph yl to first hi, graph yl heads size screen 0.006, 90 \
              linecolor rgb col linewidth 2 dashtype 1 front
          }
        }
      }
    }
    if (panel_slo[i] == panel_slo[i]) {
      set arrow from graph 0, first panel_slo[i] to graph 1, first panel_slo[i] nohead linestyle 3 front
    }
    if (cap_a[j] == cap_a[j]) {
      set arrow from first cap_a[j], graph 0 to first cap_a[j], graph 1 nohead linestyle 1 linewidth 1 dashtype 3
    }
    if (cap_b[j] == cap_b[j]) {
      set arrow from first cap_b[j], graph 0 to first cap_b[j], graph 1 nohead linestyle 2 linewidth 1 dashtype 3
    }
    # a bound: a dashed line at it, and at the foot of the panel (each run in a lane of its
    # own) an arrow from it the way the capacity may lie, labelled >= or <
    if (exists("bound_a")) {
      do for [k = 1:2] {
        bv = k == 1 ? bound_a[j] : bound_b[j]
        bd = k == 1 ? bound_a_dir : bound_b_dir
        col = k == 1 ? color_a : color_b
        if (bv == bv && bd != 0) {
          yb = 0.06 + 0.08 * (k - 1)
          set arrow (30 + k) from first bv, graph 0 to first bv, graph 1 nohead linecolor rgb col linewidth 1.5 \
            dashtype 2 front
          set arrow (32 + k) from first bv, graph yb rto graph 0.08 * bd, graph 0 head size screen 0.008, 25 \
            linecolor rgb col linewidth 2 dashtype 1 front
          set label (30 + k) (bd > 0 ? '≥' : '<') at first bv, graph yb offset (bd > 0 ? -1.2 : 0.4), 0 \
            textcolor rgb col font 'sans,13' front
        }
      }
    }
    cmd = "plot datafile index 0 using x_col[j]:(column(panel_col[i])) with linespoints linestyle 1 notitle, " \
      . "datafile index 1 using x_col[j]:(column(panel_col[i])) with linespoints linestyle 2 notitle"
    # each load's repeats' 95 % interval, a bar on its point (columns 9-14: each panel's ends),
    # drawn first, under the points
    if (intervals) {
      cmd = sprintf("plot datafile index 0 using x_col[j]:(column(panel_col[i])):%d:%d with yerrorbars " \
        . "linecolor rgb color_a linewidth 1.5 pointtype 7 pointsize 0.01 notitle, datafile index 1 using " \
        . "x_col[j]:(column(panel_col[i])):%d:%d with yerrorbars linecolor rgb color_b linewidth 1.5 " \
        . "pointtype 5 pointsize 0.01 notitle, ", 7 + 2 * i, 8 + 2 * i, 7 + 2 * i, 8 + 2 * i) . cmd[6:]
    }
    if (saturated) {
      cmd = cmd . ", datafile using x_col[j]:(column(7) > 0 ? column(panel_col[i]) : 1/0) with points linestyle 5 notitle"
    }
    if (failures) {
      cmd = cmd . ", datafile using x_col[j]:(column(8) > 0 ? column(panel_col[i]) : 1/0) with points linestyle 6 notitle"
    }
    # the SLO within the y range: invisible points at its height stretch the autoscale to it
    # (llmdlua sends NaN for an SLO too far from the values to be drawn, and says so)
    if (panel_slo[i] == panel_slo[i]) {
      cmd = cmd . ", datafile using x_col[j]:(panel_slo[i]) with points pointsize 0 notitle"
    }
    eval cmd
  }
}
# the key, alone in the strip under the panels: NaN draws nothing but a key entry
set origin 0, 0
set size 1, bottom
unset border
unset tics
unset xlabel
unset ylabel
unset arrow
unset object
unset label
unset grid
unset logscale
set lmargin 0
set rmargin 0
set tmargin 0
set bmargin 0
set xrange [0:1]
set yrange [0:1]
set key center center horizontal noopaque nobox maxcols key_cols maxrows key_rows
plot NaN with linespoints linestyle 1 title key_a, \
     NaN with linespoints linestyle 2 title key_b, \
     NaN with lines linestyle 3 title key_slo, \
     NaN with lines linestyle 1 linewidth 1 dashtype 3 title key_cap_a, \
     NaN with lines linestyle 2 linewidth 1 dashtype 3 title key_cap_b, \
     '+' using (NaN):(NaN):(NaN):(NaN) with vectors linecolor rgb color_a linewidth 2 dashtype 2 title key_bnd_a, \
     '+' using (NaN):(NaN):(NaN):(NaN) with vectors linecolor rgb color_b linewidth 2 dashtype 2 title key_bnd_b, \
     '+' using (NaN):(NaN):(NaN) with xerrorbars linecolor rgb color_a linewidth 2 pointsize 0 title key_band_a, \
     '+' using (NaN):(NaN):(NaN) with xerrorbars linecolor rgb color_b linewidth 2 pointsize 0 title key_band_b, \
     NaN with points linestyle 5 title key_sat, \
     NaN with points linestyle 6 title key_fail
unset multiplot
