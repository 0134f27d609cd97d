set terminal svg size 720,420 dynamic font 'sans,12' background rgb 'white'
set grid
set key outside right
set xlabel 'clients'
set logscale x 2
set output 'throughput.svg'
set ylabel 'throughput (tasks per unit time)'
plot 'sweep-oracle.dat' using 1:2 with linespoints dt 2 lw 2 title 'oracle', \
     'sweep-global-mutex.dat' using 1:2 with linespoints lw 2 title 'global-mutex', \
     'sweep-global-rw.dat' using 1:2 with linespoints lw 2 title 'global-rw', \
     'sweep-path-rw.dat' using 1:2 with linespoints lw 2 title 'path-rw', \
     'sweep-path-rwa.dat' using 1:2 with linespoints lw 2 title 'path-rwa', \
     'sweep-path-rwa-joined.dat' using 1:2 with linespoints lw 2 title 'path-rwa-joined'
set logscale y
set output 'p99.svg'
set ylabel 'p99 latency (units of mean hold)'
plot 'sweep-oracle.dat' using 1:3 with linespoints dt 2 lw 2 title 'oracle', \
     'sweep-global-mutex.dat' using 1:3 with linespoints lw 2 title 'global-mutex', \
     'sweep-global-rw.dat' using 1:3 with linespoints lw 2 title 'global-rw', \
     'sweep-path-rw.dat' using 1:3 with linespoints lw 2 title 'path-rw', \
     'sweep-path-rwa.dat' using 1:3 with linespoints lw 2 title 'path-rwa', \
     'sweep-path-rwa-joined.dat' using 1:3 with linespoints lw 2 title 'path-rwa-joined'
unset logscale y
set yrange [0:*]
set output 'efficiency.svg'
set ylabel 'throughput / oracle throughput'
plot 'sweep-global-mutex.dat' using 1:4 with linespoints lw 2 title 'global-mutex', \
     'sweep-global-rw.dat' using 1:4 with linespoints lw 2 title 'global-rw', \
     'sweep-path-rw.dat' using 1:4 with linespoints lw 2 title 'path-rw', \
     'sweep-path-rwa.dat' using 1:4 with linespoints lw 2 title 'path-rwa', \
     'sweep-path-rwa-joined.dat' using 1:4 with linespoints lw 2 title 'path-rwa-joined'
