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
# overload" above them (the latencies of an overloaded server), 0 where it kept up;
# panel_w, cols (llmd.treatments.bars_layout; absent: 600 px, one above the other): each
# panel's width in px and the panels a row (side by side while they fit 1400 px).
# A whisker low/high of NaN: no interval is known there (one run, no per-request data): no
# whisker, the bar pale with a dashed outline and "no interval" written above it (unless it
# is labelled overloaded), never a whisker from the value to itself, which read as a figure
# known exactly.
n = |panel_label|
k = |labels|
if (!exists("panel_w")) { panel_w = 140 + 70 * k; if (panel_w < 600) { panel_w = 600 } }
if (!exists("cols")) { cols = 1 }
rows = int((n + cols - 1) / cols)
if (!exists("title_lines")) { title_lines = 1 }
if (!exists("tic_rotate")) { tic_rotate = 0 }
if (!exists("tic_room")) { tic_room = 0 }
ov(t) = exists("overload") ? overload[int(t) + 1] : 0
ov_text(t) = ov(t) == 1 ? "saturated" : (ov(t) == 2 ? "mild overload" : "")
# the text above a bar: its overload (hatched: an overloaded server's queue, which no interval
# weighs), else "no interval" where no whisker is drawn (known: is its whisker's low a
# number; gnuplot's valid(), since a NaN read by column() voids the whole point)
bar_text(t, known) = ov(t) > 0 ? ov_text(t) : (known ? "" : "no interval")
# (a row of side-by-side panels is taller: the page is wide, the picture landscape)
panel_h = cols > 1 ? 400 : 300
w = panel_w * cols
h = (panel_h + 19 * tic_room) * rows + 80 + 20 * (title_lines - 1)
set terminal svg noenhanced dynamic size w, h font 'sans,12'
load style_file
set multiplot title title font 'sans,15'
top = (40.0 + 20 * (title_lines - 1)) / h
ph = (1 - top) / rows
set lmargin 12  # room for a 6-digit log tic (100000) and the label left of it
set rmargin 3
set bmargin 3 + tic_room
unset key
set style fill solid 0.5 border lc rgb '#444444'
set boxwidth 0.6
set xrange [-0.6:k - 0.4]
set yrange [0:*]
# (room above the tallest bar for its label: "saturated", "no interval")
set offsets 0, 0, graph 0.1, 0
# the names at the chart's own size (sans 12), which llmdlua sizes them by
set xtics font 'sans,12'
if (tic_rotate) { set xtics rotate by tic_rotate right } else { set xtics norotate }
set xtics ()
# (tics[t]: the name as llmdlua broke it into lines; older callers: labels)
if (exists("tics")) { do for [t = 1:k] { set xtics add (tics[t] t - 1) } } else { do for [t = 1:k] { set xtics add (labels[t] t - 1) } }
do for [i = 1:n] {
  set origin ((i - 1) % cols) * 1.0 / cols, (rows - 1 - int((i - 1) / cols)) * ph
  set size 1.0 / cols, ph
  set ylabel panel_label[i]
  c = panel_col[i]
  plot datafile using 1:(valid(c + 1) ? column(c) : NaN) with boxes linestyle 1 notitle, \
       datafile using 1:(valid(c + 1) ? NaN : column(c)) with boxes fill solid 0.15 \
         border lc rgb '#0072B2' lc rgb '#0072B2' dashtype 2 notitle, \
       datafile using 1:(ov($1) > 0 ? column(c) : NaN) with boxes fill pattern 4 transparent \
         border lc rgb '#444444' lc rgb '#444444' notitle, \
       datafile using 1:(valid(c + 2) ? column(c + 2) : column(c)):(bar_text($1, valid(c + 1))) \
         with labels offset 0, 0.8 font 'sans,11' tc rgb '#222222' notitle, \
       datafile using 1:(column(c + 1)):(0):(column(c + 2) - column(c + 1)) with vectors nohead lc rgb '#222222' lw 1.5 notitle, \
       datafile using ($1 - 0.12):(column(c + 1)):(0.24):(0) with vectors nohead lc rgb '#222222' lw 1.5 notitle, \
       datafile using ($1 - 0.12):(column(c + 2)):(0.24):(0) with vectors nohead lc rgb '#222222' lw 1.5 notitle
}
unset multiplot
