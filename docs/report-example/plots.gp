# Written by loopbench report. Re-render in this directory: gnuplot plots.gp
# SVG and PNG (pngcairo when this gnuplot has it, else png).
settings = '"0" "2" "8"'
knob = 'idle wait (ms)'
health = 'peak lag'
draw_time = 1
draw_tradeoff = 1
draw_latency = 0
health_unit = ' (ms)'
nsettings = 3
logscale = 1
do for [fmt in 'svg png'] {
  if (fmt eq 'svg') {
    set terminal svg size 800,480 dynamic font 'sans,12' background '#ffffff'
  } else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
      set terminal pngcairo size 800,480 font 'sans,11'
    } else {
      set terminal png size 800,480
    }
  }
  reset
  set output 'cpu.'.fmt
  set title 'CPU per setting: median, min-max over runs'
  set xlabel knob
  set ylabel 'CPU (% of one core)'
  set grid ytics
  set xrange [-0.5:nsettings-0.5]
  if (logscale) { set logscale y } else { set yrange [0:*] }
  set boxwidth 0.5
  set style fill solid 0.4
  plot 'cpu.dat' using 1:3:xticlabels(2) with boxes notitle lc rgb '#4472c4', \
       '' using 1:3:4:5 with yerrorbars notitle lc rgb '#1f3864' pt 7
  if (draw_time) {
  reset
  set output 'cpu-time.'.fmt
  set title 'CPU over time, one line per run'
  set xlabel 'time in the window (s)'
  set ylabel 'CPU (% of one core)'
  set grid
  set key outside right title knob
  if (logscale) { set logscale y }
  plot for [i=0:nsettings-1] 'cpu-time.dat' index i using 1:2 with linespoints \
       lc i+1 pt 7 ps 0.5 title word(settings, i+1)
  }
  if (draw_tradeoff) {
    reset
    set output 'tradeoff.'.fmt
    set title 'Trade-off: CPU against '.health.', one point per run'
    set xlabel 'CPU (% of one core)'
    set ylabel health.health_unit
    set grid
    set key outside right title knob
    if (logscale) { set logscale x }
    set yrange [0:*]
    set offsets graph 0.05, graph 0.05, graph 0.1, 0
    plot for [i=0:nsettings-1] 'tradeoff.dat' index i using 1:2 with points \
         lc i+1 pt 7 ps 1.2 title word(settings, i+1)
  }
  if (draw_latency) {
    reset
    set output 'latency.'.fmt
    set title 'Round-trip latency: percentiles of all round trips per setting'
    set xlabel 'percentile'
    set ylabel 'round trip (ms)'
    set logscale x
    set logscale y
    set xtics ('0' 1, '50' 2, '90' 10, '99' 100, '99.9' 1000, '99.99' 10000)
    set grid
    set key outside right title knob
    plot for [i=0:nsettings-1] 'latency.dat' index i using 2:3 with linespoints \
         lc i+1 pt 7 ps 0.6 title word(settings, i+1)
  }
  set output
}
