# Latency against achieved throughput: one row of panels per latency percentile, one
# column per throughput (output tok/s, req/s), one line per run.
# gnuplot writes the SVG on its standard output (no `set output`).
#
# From llmdlua: datafile (columns: output tok/s, achieved req/s, then one latency column
# per panel, offered load; block 0 is run A, block 1 run B), style_file, title, label_a,
# label_b; per x axis j: x_col[j] (its column), x_label[j], cap_a[j] / cap_b[j] (each
# run's capacity at the SLOs on that axis, NaN when unknown); per panel i: panel_col[i]
# (its column), panel_label[i], panel_log[i] (1: log y), panel_slo[i] (the SLO
# threshold in ms, NaN when none), panel_has_a[i] / panel_has_b[i] (does the run have
# values).
n = |panel_col|
m = |x_col|
set terminal svg noenhanced dynamic size 560 * m + 100, 250 * n + 80 font 'sans,12'
load style_file
set multiplot layout n, m title title font 'sans,15'
set lmargin 12
do for [i = 1:n] {
  do for [j = 1:m] {
    set xlabel x_label[j]
    set ylabel panel_label[i]
    if (panel_log[i]) { set logscale y } else { unset logscale y }
    unset arrow
    unset label
    if (panel_slo[i] == panel_slo[i]) {
      set arrow from graph 0, first panel_slo[i] to graph 1, first panel_slo[i] nohead linestyle 3 front
      set label sprintf('SLO %g ms', panel_slo[i]) at graph 0.99, first panel_slo[i] right offset 0, 0.7
    }
    if (cap_a[j] == cap_a[j]) {
      set arrow from first cap_a[j], graph 0 to first cap_a[j], graph 1 nohead linestyle 1 dashtype 3
      set label 'capacity '.label_a at first cap_a[j], graph 0.95 left offset 0.5, 0 textcolor rgb '#0072B2'
    }
    if (cap_b[j] == cap_b[j]) {
      set arrow from first cap_b[j], graph 0 to first cap_b[j], graph 1 nohead linestyle 2 dashtype 3
      set label 'capacity '.label_b at first cap_b[j], graph 0.88 left offset 0.5, 0 textcolor rgb '#D55E00'
    }
    plot datafile index 0 using x_col[j]:(column(panel_col[i])) with linespoints linestyle 1 \
           title (panel_has_a[i] ? label_a : ''), \
         datafile index 1 using x_col[j]:(column(panel_col[i])) with linespoints linestyle 2 \
           title (panel_has_b[i] ? label_b : '')
  }
}
unset multiplot
