#!/usr/bin/env bash
# refshard end to end: boots the reference server at idle wait 0 (spin) and 2 (sleep) for about
# four seconds each and checks what loopbench and its users rely on -- the loop: lines in the
# reference format, the CPU each setting costs (read from /proc, not from the server), the
# echo service, the config rewrite, a prompt clean exit on SIGTERM and SIGINT, and one-line
# errors for a bad config or a port in use.
source "$(dirname "$0")/lib.sh"

: "${REFSHARD:?run through meson test}"

# die WHY: a failure the rest of the test cannot go on from; shows the server's last lines.
log=
die() {
  fail "$*"
  if [ -n "$log" ] && [ -f "$log" ]; then
    echo "--- last lines of $log:"
    tail -n 15 "$log"
  fi
  exit 1
}

# ModernUO's loop line, whole: [HH:MM:SS INF] loop: ... <s:Server.Commands.LoopStats>
loop_re='^\[[0-9]{2}:[0-9]{2}:[0-9]{2} INF\] loop: cpu=([0-9]+\.[0-9])% cps=([0-9]+)'
loop_re+=' missed8ms=([0-9]+) missed16ms=([0-9]+) sched=([0-9]+) slots=([0-9]+)/([0-9]+)'
loop_re+=' tickLagPeak=([0-9]+)ms sleeps=([0-9]+)/([0-9]+) \(([0-9]+\.[0-9])%\)'
loop_re+=' wakes=([0-9]+) elided=([0-9]+) backoffs=([0-9]+)( \(SUSPENDED\))? idleWait=([0-9]+)ms'
loop_re+=' <s:Server\.Commands\.LoopStats>$'
SLEEPS=9 RATIO=11 IDLE_WAIT=16 # BASH_REMATCH indexes

clk_tck=$(getconf CLK_TCK)

# CPU ticks (utime + stime) of a process; fields 14 and 15 of /proc/PID/stat, counted after
# the last ')' since the command name may hold spaces.
cpu_ticks() {
  local stat rest f
  read -r stat < "/proc/$1/stat"
  rest=${stat##*) }
  read -r -a f <<< "$rest"
  echo $(( f[11] + f[12] ))
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# wait_for FILE PATTERN SECONDS
wait_for() {
  local i
  for (( i = 0; i < $3 * 20; i++ )); do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

# boot NAME IDLE_WAIT: start refshard in $TMP/NAME on a config that sets only some settings
# (so the rewrite has something to add) and has an unknown top-level key (that it must keep).
# Sets dir, log, pid and port.
boot() {
  dir=$TMP/$1
  mkdir -p "$dir"
  cat > "$dir/refshard.config.json" <<JSON
{
  "operatorNote": "keep me",
  "listeners": ["127.0.0.1:0"],
  "settings": {
    "server.eventLoopIdleWaitMs": "$2",
    "server.loopStatsIntervalSeconds": "1"
  }
}
JSON
  log=$dir/out.log
  "$REFSHARD" --config "$dir/refshard.config.json" < /dev/null > "$log" 2> "$dir/err.log" &
  pid=$!
  PIDS+=("$pid")
  wait_for "$log" 'loop stats: reporting every' 5 || die "$1: no 'loop stats' line within 5 s"
  port=$(sed -n 's/.*Listening: 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$log" | head -n 1)
  [ -n "$port" ] || die "$1: no 'Listening: 127.0.0.1:PORT' line"
}

# echo_round_trip: two clients at once on $port, each gets its own lines back.
echo_round_trip() {
  local a b ra rb1 rb2
  exec {a}<>"/dev/tcp/127.0.0.1/$port" {b}<>"/dev/tcp/127.0.0.1/$port"
  printf 'hello from a\n' >&"$a"
  printf 'hello from b\nsecond line\n' >&"$b"
  IFS= read -r -t 2 ra <&"$a" || ra=
  IFS= read -r -t 2 rb1 <&"$b" || rb1=
  IFS= read -r -t 2 rb2 <&"$b" || rb2=
  exec {a}>&- {b}>&-
  [ "$ra|$rb1|$rb2" = "hello from a|hello from b|second line" ]
}

# Nanoseconds the loop thread (the main one) has run and has waited runnable for a CPU:
# the first two fields of its schedstat.
run_wait_ns() {
  local run wait _
  read -r run wait _ < "/proc/$1/task/$1/schedstat"
  echo $(( run + wait ))
}

# measure: over a 3 s window, the server's CPU from /proc in tenths of a % of one core
# (cpu10) and as text (cpu), and the share of the window its loop thread was runnable,
# on a CPU or waiting for one (runnable10, runnable): a loop that never sleeps is runnable
# the whole window however busy the machine is, while its CPU % falls with the machine's
# load (this test shares the machine, tests/meson.build).
measure() {
  local t0 c0 r0 t1 c1 r1
  t0=$(now_ms); c0=$(cpu_ticks "$pid"); r0=$(run_wait_ns "$pid")
  sleep 3
  t1=$(now_ms); c1=$(cpu_ticks "$pid"); r1=$(run_wait_ns "$pid")
  cpu10=$(( (c1 - c0) * 1000 * 1000 / clk_tck / (t1 - t0) ))
  cpu=$(( cpu10 / 10 )).$(( cpu10 % 10 ))
  runnable10=$(( (r1 - r0) / 1000 / (t1 - t0) ))
  runnable=$(( runnable10 / 10 )).$(( runnable10 % 10 ))
}

# loop_lines NAME: the loop lines so far, each checked against the reference format.
loop_lines() {
  lines=()
  local l
  while IFS= read -r l; do
    [[ $l =~ $loop_re ]] || die "$1: loop line not in the reference format: $l"
    lines+=("$l")
  done < <(grep ' loop: ' "$log")
  [ "${#lines[@]}" -ge 2 ] || die "$1: ${#lines[@]} loop line(s) after 4 s, expected 2 or more"
}

# all_lines TEST: TEST (a command reading BASH_REMATCH) holds for every loop line.
all_lines() {
  local l
  for l in "${lines[@]}"; do
    [[ $l =~ $loop_re ]]
    "$@" || { echo "  line: $l"; return 1; }
  done
}

# exits_on SIGNAL: the server exits 0 within 1 s of SIGNAL; sets elapsed.
exits_on() {
  local t0 rc=0
  t0=$(now_ms)
  kill "-$1" "$pid"
  while kill -0 "$pid" 2>/dev/null && [ $(( $(now_ms) - t0 )) -lt 1000 ]; do
    sleep 0.02
  done
  elapsed=$(( $(now_ms) - t0 ))
  kill -0 "$pid" 2>/dev/null && return 1
  wait "$pid" || rc=$?
  [ "$rc" -eq 0 ]
}

# refused CONFIG PATTERN: refshard refuses to start: exit 1 and one stderr line matching
# "^refshard: PATTERN" (a server that starts anyway is stopped by timeout, status 124).
refused() {
  local rc=0 err=$TMP/refused.err
  timeout 5 "$REFSHARD" --config "$1" < /dev/null > /dev/null 2> "$err" || rc=$?
  echo "  status $rc, stderr: $(cat "$err")"
  [ "$rc" -eq 1 ] && [ "$(wc -l < "$err")" -eq 1 ] && grep -q "^refshard: $2" "$err"
}

help=$("$REFSHARD" --help) || help=
check "--help prints the usage" [ "${help%%$'\n'*}" = "usage: refshard [--config FILE]" ]

# --- idle wait 0: the loop spins ---
boot spin 0
check "spin: echo round trip on 127.0.0.1:$port, two clients" echo_round_trip
measure
loop_lines spin
never_slept() { [ "${BASH_REMATCH[SLEEPS]}" = 0 ]; }
no_idle_wait() { [ "${BASH_REMATCH[IDLE_WAIT]}" = 0 ]; }
check "spin: ${#lines[@]} loop lines, each sleeps=0/N" all_lines never_slept
check "spin: ${#lines[@]} loop lines, each idleWait=0ms" all_lines no_idle_wait
check "spin: the loop thread runnable ${runnable}% of the window (${cpu}% of a core on a CPU), expected above 90%" \
  [ "$runnable10" -gt 900 ]

cfg=$dir/refshard.config.json
has_every_setting() {
  local key
  for key in server.eventLoopIdleWaitMs server.loopStatsIntervalSeconds \
             server.lateWakeThreshold server.lateWakePercent server.autoDetectIdleWait \
             refshard.timers refshard.timerMinMs refshard.timerMaxMs refshard.workPerTickUs \
             refshard.workPerTimerUs refshard.postsPerSecond; do
    grep -q "\"$key\": \"" "$cfg" || { echo "  missing: $key"; return 1; }
  done
}
check "config rewrite: every setting present" has_every_setting
check "config rewrite: the configured idle wait kept" \
  grep -q '"server.eventLoopIdleWaitMs": "0"' "$cfg"
check "config rewrite: the unknown top-level key kept" grep -q '"operatorNote": "keep me"' "$cfg"
check "spin: SIGTERM exits 0 within 1 s" exits_on TERM
echo "  (exited in ${elapsed} ms)"

# --- idle wait 2: the loop sleeps ---
boot sleep 2
check "sleep: echo round trip on 127.0.0.1:$port, two clients" echo_round_trip
measure
loop_lines sleep
above_half() { local r=${BASH_REMATCH[RATIO]}; [ "${r%.*}" -ge 50 ] && [ "$r" != 50.0 ]; }
check "sleep: ${#lines[@]} loop lines, each sleep ratio above 50%" all_lines above_half
echo "  (last: ${BASH_REMATCH[RATIO]}%)"
check "sleep: ${cpu}% of a core from /proc, expected under 20%" [ "$cpu10" -lt 200 ]
check "sleep: the loop thread runnable ${runnable}% of the window, expected under 50%" \
  [ "$runnable10" -lt 500 ]

# A port that is taken: the sleeping server still holds $port.
sed "s/127\.0\.0\.1:0/127.0.0.1:$port/" "$dir/refshard.config.json" > "$TMP/taken.json"
check "port in use: exit 1, one line" refused "$TMP/taken.json" ".*'127.0.0.1:$port'"
check "sleep: SIGINT exits 0 within 1 s" exits_on INT
echo "  (exited in ${elapsed} ms)"

# --- bad configs ---
log=
printf '{"settings": {' > "$TMP/bad.json"
check "config not JSON: exit 1, one line" refused "$TMP/bad.json" "invalid JSON"
printf '{"settings": {"server.eventLoopIdleWaitMs": "two"}}' > "$TMP/bad.json"
check "setting not a number: exit 1, one line" refused "$TMP/bad.json" "invalid number 'two'"
check "config missing: exit 1, one line" refused "$TMP/missing.json" "cannot read config"
