set terminal svg size 720,420 dynamic font 'sans,12' background rgb 'white'
set grid
set key outside right
set xlabel 'clients'
set logscale x 2
set output 'throughput.svg'
set ylabel 'throughput (tasks per unit time)'
plot 'sweep-oracle.dat' using 1:2 with linespoints lc rgb '#000000' dt 2 pt 1 lw 2 title 'oracle', \
     'sweep-global-mutex.dat' using 1:2 with linespoints lc rgb '#d62728' dt 1 pt 5 lw 2 title 'global-mutex', \
     'sweep-global-rw.dat' using 1:2 with linespoints lc rgb '#ff7f0e' dt 1 pt 9 lw 2 title 'global-rw', \
     'sweep-path-rw.dat' using 1:2 with linespoints lc rgb '#2ca02c' dt 1 pt 11 lw 2 title 'path-rw', \
     'sweep-path-rwa.dat' using 1:2 with linespoints lc rgb '#9467bd' dt 1 pt 7 lw 2 title 'path-rwa', \
     'sweep-path-rwa-joined.dat' using 1:2 with linespoints lc rgb '#1f77b4' dt 3 pt 6 lw 2 title 'path-rwa-joined'
set logscale y
set output 'p99.svg'
set ylabel 'p99 latency (units of mean hold)'
plot 'sweep-oracle.dat' using 1:3 with linespoints lc rgb '#000000' dt 2 pt 1 lw 2 title 'oracle', \
     'sweep-global-mutex.dat' using 1:3 with linespoints lc rgb '#d62728' dt 1 pt 5 lw 2 title 'global-mutex', \
     'sweep-global-rw.dat' using 1:3 with linespoints lc rgb '#ff7f0e' dt 1 pt 9 lw 2 title 'global-rw', \
     'sweep-path-rw.dat' using 1:3 with linespoints lc rgb '#2ca02c' dt 1 pt 11 lw 2 title 'path-rw', \
     'sweep-path-rwa.dat' using 1:3 with linespoints lc rgb '#9467bd' dt 1 pt 7 lw 2 title 'path-rwa', \
     'sweep-path-rwa-joined.dat' using 1:3 with linespoints lc rgb '#1f77b4' dt 3 pt 6 lw 2 title 'path-rwa-joined'
unset logscale y
set yrange [0:*]
set output 'efficiency.svg'
set ylabel 'throughput / oracle throughput'
plot 'sweep-oracle.dat' using 1:4 with linespoints lc rgb '#000000' dt 2 pt 1 lw 2 title 'oracle', \
     'sweep-global-mutex.dat' using 1:4 with linespoints lc rgb '#d62728' dt 1 pt 5 lw 2 title 'global-mutex', \
     'sweep-global-rw.dat' using 1:4 with linespoints lc rgb '#ff7f0e' dt 1 pt 9 lw 2 title 'global-rw', \
     'sweep-path-rw.dat' using 1:4 with linespoints lc rgb '#2ca02c' dt 1 pt 11 lw 2 title 'path-rw', \
     'sweep-path-rwa.dat' using 1:4 with linespoints lc rgb '#9467bd' dt 1 pt 7 lw 2 title 'path-rwa', \
     'sweep-path-rwa-joined.dat' using 1:4 with linespoints lc rgb '#1f77b4' dt 3 pt 6 lw 2 title 'path-rwa-joined'
