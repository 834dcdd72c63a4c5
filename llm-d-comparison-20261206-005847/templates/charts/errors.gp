# Failed requests by cause: a pair of bars per cause, run A solid, run B hatched.
# gnuplot writes the SVG on its standard output.
#
# From llmdlua: datafile (columns: cause number, run A's count, run B's count),
# style_file, title, label_a, label_b, cause[i] (the cause's text, in at most two lines of
# 56 characters), cause_lines (the most lines a cause takes), max_count (the largest count).
n = |cause|
set terminal svg noenhanced dynamic size 900, (24 + 18 * cause_lines) * n + 200 font 'sans,12'
load style_file
set title title font 'sans,15'
set xlabel 'failed requests'
set xrange [0:*]
set yrange [n + 0.6:0.4]
set ytics scale 0
set grid noytics
set lmargin at screen 0.45
# the key under the x label, with room for both: gnuplot's own margin for a key below
# lets it cover the label
set key below center horizontal nobox
set bmargin 6
set offsets 0, graph 0.05, 0, 0
if (max_count <= 10) { set xtics 1 }
plot datafile using (0):($1 - 0.2):(0):2:($1 - 0.38):($1 - 0.02):ytic(cause[int($1)]) \
       with boxxyerror linestyle 1 fillstyle solid 0.9 title label_a, \
     datafile using (0):($1 + 0.2):(0):3:($1 + 0.02):($1 + 0.38) \
       with boxxyerror linestyle 2 fillstyle pattern 5 title label_b
