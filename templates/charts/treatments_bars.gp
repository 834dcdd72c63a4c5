# N treatments: one bar per treatment and panel, its value at the common load (where the
# report's latency table compares them; never a mean over load points, which differ from
# one treatment to the next), with a whisker over the repeats' 95 % CI where that point
# was repeated, else over the two measured load points an interpolated value lies between.
#
# From llmdlua: datafile (columns: treatment number (0-based), then value, whisker low,
# whisker high of each figure in turn), style_file, title, labels[i]; per panel i:
# panel_col[i] (the column of its value; low and high follow), panel_label[i]; title_lines (the lines of the title, 1 when absent);
# tic_rotate (0, or 45 where the names would run into each other), tic_room (the lines they take then) and
# tics[t] (each name in lines, a long one broken so that, rotated, it stays inside the picture);
# overload[t] (absent: 0 for all): 1 where treatment t is saturated at the common load, 2
# where it is mildly overloaded there: its bars hatched and labelled "saturated" / "mild
# overload" above them (the latencies of an overloaded server), 0 where it kept up.
n = |panel_label|
k = |labels|
w = 140 + 70 * k
if (w < 600) { w = 600 }
if (!exists("title_lines")) { title_lines = 1 }
if (!exists("tic_rotate")) { tic_rotate = 0 }
if (!exists("tic_room")) { tic_room = 0 }
ov(t) = exists("overload") ? overload[int(t) + 1] : 0
ov_text(t) = ov(t) == 1 ? "saturated" : (ov(t) == 2 ? "mild overload" : "")
h = (300 + 19 * tic_room) * n + 80 + 20 * (title_lines - 1)
set terminal svg noenhanced dynamic size w, h font 'sans,12'
load style_file
set multiplot title title font 'sans,15'
top = (40.0 + 20 * (title_lines - 1)) / h
ph = (1 - top) / n
set lmargin 12  # room for a 6-digit log tic (100000) and the label left of it
set rmargin 3
set bmargin 3 + tic_room
unset key
set style fill solid 0.5 border lc rgb '#444444'
set boxwidth 0.6
set xrange [-0.6:k - 0.4]
set yrange [0:*]
# (room above the tallest bar for its "saturated" label)
ov_any = 0
if (exists("overload")) { do for [t = 1:|overload|] { if (overload[t] > 0) { ov_any = 1 } } }
if (ov_any) { set offsets 0, 0, graph 0.1, 0 }
# the names in the ticks' font of the one-point chart (sans 10), which llmdlua sizes them by
set xtics font 'sans,10'
if (tic_rotate) { set xtics rotate by tic_rotate right } else { set xtics norotate }
set xtics ()
# (tics[t]: the name as llmdlua broke it into lines; older callers: labels)
if (exists("tics")) { do for [t = 1:k] { set xtics add (tics[t] t - 1) } } else { do for [t = 1:k] { set xtics add (labels[t] t - 1) } }
do for [i = 1:n] {
  set origin 0, (n - i) * ph
  set size 1, ph
  set ylabel panel_label[i]
  c = panel_col[i]
  plot datafile using 1:(column(c)) with boxes linestyle 1 notitle, \
       datafile using 1:(ov($1) > 0 ? column(c) : NaN) with boxes fill pattern 4 transparent \
         border lc rgb '#444444' lc rgb '#444444' notitle, \
       datafile using 1:(column(c + 2)):(ov_text($1)) with labels offset 0, 0.7 font 'sans,10' \
         tc rgb '#222222' notitle, \
       datafile using 1:(column(c + 1)):(0):(column(c + 2) - column(c + 1)) with vectors nohead lc rgb '#222222' lw 1.5 notitle, \
       datafile using ($1 - 0.12):(column(c + 1)):(0.24):(0) with vectors nohead lc rgb '#222222' lw 1.5 notitle, \
       datafile using ($1 - 0.12):(column(c + 2)):(0.24):(0) with vectors nohead lc rgb '#222222' lw 1.5 notitle
}
unset multiplot
