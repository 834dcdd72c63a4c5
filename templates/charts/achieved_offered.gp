# Achieved against offered load, one point per load point, one line per run; the grey
# diagonal is "achieved = offered" (drawn when load is a request rate).
# gnuplot writes the SVG on its standard output.
#
# From llmdlua: datafile (columns: offered, achieved req/s; block 0 is run A, block 1
# run B), style_file, title, label_a, label_b, xlabel, diagonal (1: draw y = x).
set terminal svg noenhanced dynamic size 900, 480 font 'sans,12'
load style_file
set title title font 'sans,15'
set xlabel xlabel
set ylabel 'achieved request throughput (req/s)'
set xrange [0:*]
set yrange [0:*]
if (diagonal) {
  plot datafile index 0 using 1:2 with linespoints linestyle 1 title label_a, \
       datafile index 1 using 1:2 with linespoints linestyle 2 title label_b, \
       x with lines linestyle 3 title 'achieved = offered'
} else {
  plot datafile index 0 using 1:2 with linespoints linestyle 1 title label_a, \
       datafile index 1 using 1:2 with linespoints linestyle 2 title label_b
}
