# Throughput (llmd.loadpoints.THROUGHPUT_DEFINITION) against offered load, one point per load point, one line per run; the light
# grey dotted diagonal, under the runs, is "throughput = offered" (drawn when load is a request rate); a ring marks the
# load points at or past a run's saturation point (the decision layer's, as the ladder's
# Saturated column); a triangle the load points whose achieved rate fell short because
# requests failed, not from overload (never saturated, as the tables say). Run A's markers are twice the size of B's, drawn first, so that a
# point where both runs sit (one load point each, at the same rates) shows both: B's
# square inside A's disc; A's rings are larger than B's for the same reason.
# gnuplot writes the SVG on its standard output.
#
# From llmdlua: datafile (columns: offered, achieved req/s, saturated 1/0, failures 1/0;
# block 0 is run A, block 1 run B), style_file, title, label_a, label_b, xlabel, diagonal
# (1: draw y = x), saturated (1: some point is saturated), failures (1: some point fell
# short from failed requests), xmax and ymax (the axes' ends: the highest point
# and a margin, so that the last markers are drawn inside the plot).
set terminal svg noenhanced dynamic size 900, 480 font 'sans,12'
load style_file
set title title font 'sans,15'
set xlabel xlabel
set ylabel 'request throughput (req/s)'
if (exists("xmax")) { set xrange [0:xmax] } else { set xrange [0:*] }
if (exists("ymax")) { set yrange [0:ymax] } else { set yrange [0:*] }
if (!exists("saturated")) { saturated = 0 }
if (!exists("failures")) { failures = 0 }
# Run A's marker size, and its ring's: the style's ring (linestyle 5) clears B's marker by
# about 1.3 sizes, but A's larger disc only by 0.4, so that the ring barely showed on A;
# A's ring is drawn as much larger than A's disc as the style's ring is than B's marker
size_a = 1.8
ring_a = size_a + 1.4
# the plot command, with the diagonal, the rings and the failures' triangles where there are any
# The diagonal is drawn first, under the runs, thin, light and dotted: a run that keeps up
# lies on it, and drawn over the run's dashed line in a dashed grey of its own it hid that
# line (a trial could not tell run B from the diagonal)
cmd = "plot "
if (diagonal) { cmd = cmd . "x with lines linecolor rgb '#AAAAAA' linewidth 1 dashtype 3 title 'throughput = offered', " }
cmd = cmd . sprintf("datafile index 0 using 1:2 with linespoints linestyle 1 pointsize %g title label_a, ", size_a) \
  . "datafile index 1 using 1:2 with linespoints linestyle 2 title label_b"
# the rings: each run's at its own size, the key's sample once (a point with no value, so
# that it is there whichever run has saturated points)
if (saturated) {
  cmd = cmd . sprintf(", datafile index 0 using 1:($3 > 0 ? $2 : 1/0) with points linestyle 5 pointsize %g " \
    . "notitle, datafile index 1 using 1:($3 > 0 ? $2 : 1/0) with points linestyle 5 notitle, " \
    . "'+' using (NaN):(NaN) with points linestyle 5 title 'saturated'", ring_a)
}
if (failures) {
  cmd = cmd . ", datafile using 1:($4 > 0 ? $2 : 1/0) with points linestyle 6 title 'failed requests, not marked saturated'"
}
eval cmd
