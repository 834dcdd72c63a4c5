# The look shared by every chart: loaded by each NAME.gp after its `set terminal`.
# Edit freely (the workspace keeps a copy in templates/charts/: edit that one and run
# `llmdlua analyze.lua <workspace>`).
#
# Run A and run B differ in colour (Okabe-Ito blue and vermillion, told apart by
# colour-blind readers), in dash pattern and in marker shape, so that they stay apart
# printed in greyscale too.
set encoding utf8
color_a = '#0072B2'
color_b = '#D55E00'
set style line 1 linecolor rgb '#0072B2' linewidth 2 dashtype 1 pointtype 7 pointsize 0.9
set style line 2 linecolor rgb '#D55E00' linewidth 2 dashtype 2 pointtype 5 pointsize 0.9
set style line 3 linecolor rgb '#444444' linewidth 1.5 dashtype 4
set style line 4 linecolor rgb '#999999' linewidth 1 dashtype 1
# a ring around the load points at or past a run's saturation point
set style line 5 linecolor rgb '#444444' linewidth 1.5 pointtype 6 pointsize 2.2
# a triangle around the load points whose achieved rate fell short because requests
# failed: failures, not overload (never ringed as saturated)
set style line 6 linecolor rgb '#444444' linewidth 1.5 pointtype 8 pointsize 2.2
set grid linestyle 4 linewidth 0.5 linecolor rgb '#e0e0e0'
set border linecolor rgb '#444444'
set key top left box opaque samplen 3
set tics nomirror
