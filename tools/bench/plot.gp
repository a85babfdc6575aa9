# gnuplot -e "in='points.csv'; out='chart.svg'" plot.gp
# The peer of logdown's {chart} in make bench: one line over every point
# of a step,loss CSV (header row), 720 x 405 as logdown's default.
set terminal svg size 720,405
set output out
set datafile separator ','
set datafile columnheaders
set xlabel 'Step'
set ylabel 'Loss'
set title 'Training loss'
plot in using 1:2 with lines linewidth 0.8 title 'loss'
