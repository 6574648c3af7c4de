#!/usr/bin/env bash
# End-to-end tests of `loopbench sample --pid` on a real process: the burner.
# Needs BURNER (set by meson) and jq. Under `meson test --setup valgrind`, every loopbench
# here runs under memcheck (lib.sh).
source "$(dirname "$0")/lib.sh"

: "${BURNER:?set BURNER to the burner binary}"
command -v jq >/dev/null || { echo "jq is missing: apt-get install -y jq"; exit 1; }

# stop MESSAGE: a failure that leaves nothing for the checks after it to check.
stop() {
  fail "$*"
  exit 1
}

# Run loopbench, keeping its exit status, stdout and stderr.
lb() {
  set +e
  "$LOOPBENCH" "$@" >"$TMP/out" 2>"$TMP/err"
  status=$?
  set -e
}

# expect_json WHAT FILTER SHOW: FILTER holds of the last JSON printed; else fail, showing
# SHOW of it.
expect_json() {
  if jq -e "$2" "$TMP/out" >/dev/null; then
    ok "$1"
  else
    fail "$1: $(jq -c "$3" "$TMP/out")"
  fi
}

# expect_usage_error ARGS...: exit 2 and one error line plus the usage hint.
expect_usage_error() {
  lb sample "$@"
  if [ "$status" -eq 2 ] && grep -q '^loopbench: sample' "$TMP/err" && [ ! -s "$TMP/out" ]; then
    ok "sample $* is refused with exit 2: $(head -n 1 "$TMP/err")"
  else
    fail "sample $*: exit $status (2 expected), stdout $(wc -c <"$TMP/out") bytes (none expected), stderr: $(cat "$TMP/err")"
  fi
}

# The share of a burner, and the JSON a script relies on. It sleeps LEAD s, burns 1 s at a
# quarter of a core, then sleeps until stopped: the window, opened once it has said it
# started and closed after the burn, reads what it says it used in between, whatever share
# of a core other processes left it (lib.sh, tests/e2e/accuracy.sh). LEAD is loopbench's
# time to open its window, longer under valgrind.
LEAD=$([ -n "${LOOPBENCH_VALGRIND:-}" ] && echo 2 || echo 1)
WINDOW=$(awk -v l="$LEAD" 'BEGIN { print l + 1.5 }')
"$BURNER" --share 0.25 --delay "$LEAD" --seconds 1 --linger >"$TMP/burn.log" &
burn=$!
PIDS+=("$burn")
for _ in $(seq 200); do grep -q '^burner: started' "$TMP/burn.log" && break; sleep 0.02; done
lb sample --pid "$burn" --seconds "$WINDOW" --interval 500 --json
kill -TERM "$burn"
wait "$burn" || true
[ "$status" -eq 0 ] || stop "sample exited $status: $(cat "$TMP/err")"
cpu=$(jq .cpu_percent "$TMP/out")
read -r _ ns < <(said "$TMP/burn.log" slept cpu_ns)
truth=$(awk -v ns="$ns" -v w="$(jq .wall_seconds "$TMP/out")" 'BEGIN { printf "%.4f", ns / 1e9 / w * 100 }')
check "a burner read as $cpu% of one core, what it says it used in the window: $truth%" near "$cpu" "$truth" 0.1
expect_json "  ... the window held its burn (its first and last points read no CPU)" \
  '.series[0].cpu_percent < 0.5 and .series[-1].cpu_percent < 0.5' '.series'

expect_json "--json has the documented keys" \
  'has("cpu_percent") and has("cpu_seconds") and has("wall_seconds") and has("cpu_source")
   and has("resolution_ns") and has("unreliable") and has("series")
   and has("loopbench_cpu_seconds") and has("loopbench_max_rss_kib")' 'keys'
expect_json "--json has consistent figures" \
  "$WINDOW"' as $w | .cpu_source == "process-tree-clocks" and .unreliable == false
   and (.wall_seconds >= $w and .wall_seconds < $w + 0.2)
   and (.cpu_seconds / .wall_seconds * 100 - .cpu_percent | fabs < 0.01)' 'del(.series)'

points=$(jq '.series | length' "$TMP/out")
want=$(awk -v w="$WINDOW" 'BEGIN { print w / 0.5 }')
check "$WINDOW s at 500 ms give one point per interval ($want, got $points)" test "$points" -eq "$want"
expect_json "each point of the series is the share of its interval (their mean over time is the window's)" \
  '([0] + (.series | map(.t_s))) as $t
   | ([range(.series | length) as $i | .series[$i].cpu_percent * ($t[$i + 1] - $t[$i])] | add / $t[-1]) as $mean
   | ([.series[] | .rss_bytes > 0] | all) and ((.cpu_percent - $mean) | fabs < 0.05)' '.series'

# A burner that goes on, for what follows.
"$BURNER" --share 0.25 --seconds 120 >/dev/null &
burner=$!
PIDS+=("$burner")
sleep 0.3

# Text output.
lb sample --pid "$burner" --seconds 1
[ "$status" -eq 0 ] || stop "sample (text) exited $status: $(cat "$TMP/err")"
check "text output gives the share" grep -q "^pid $burner: .*% of one core over 1\.0" "$TMP/out"
check "text output names the source" grep -q "process-tree-clocks" "$TMP/out"

# --log: only the marker lines the log gained during the window count.
log="$TMP/server.log"
{
  printf '[%s INF] loop: cpu=50%% cps=9999\n' "$(date -d '-1 hour' +%H:%M:%S)"
  printf 'loop: cps=9999 (a line without a time, before the window)\n'
  printf '[%s INF] Server started\n' "$(date +%H:%M:%S)"
} >"$log"
# Written until the sample is done, however long a loopbench under valgrind takes to start.
(
  while :; do
    printf '[%s INF] loop: cpu=0.8%% slots=1/1875 tickLagPeak=11ms cps=412\n' \
      "$(date +%H:%M:%S)"
    sleep 0.25
  done
) >>"$log" &
writer=$!
PIDS+=("$writer")
lb sample --pid "$burner" --seconds 1.5 --log "$log" --json
kill "$writer"
[ "$status" -eq 0 ] || stop "sample --log exited $status: $(cat "$TMP/err")"
expect_json "--log aggregates the $(jq .log.marker_lines "$TMP/out") marker lines of the window only" \
  '.metrics.cps.windows >= 3 and .metrics.cps.max == 412 and .metrics.cps.min == 412
   and .metrics.slots.type == "ratio" and .log.marker_lines >= 3' '{log, metrics}'

# A process that is gone: at the start, and during the window.
sh -c 'exit 0' &
dead=$!
wait "$dead" || true
lb sample --pid "$dead" --seconds 1
check "a dead pid exits 1 (got $status)" test "$status" -eq 1
check "a dead pid gives one line: $(cat "$TMP/err")" \
  grep -qx "loopbench: no process with pid $dead" "$TMP/err"
check "  ... and nothing else" test "$(wc -l <"$TMP/err")" -eq 1

# It lives 3 s, long enough for a loopbench under valgrind to attach first.
"$BURNER" --share 0.1 --exit-after 3 0 >/dev/null &
short=$!
PIDS+=("$short")
lb sample --pid "$short" --seconds 10 --interval 200
check "a pid that exits during the window exits 1 (got $status)" test "$status" -eq 1
check "  ... with one line: $(cat "$TMP/err")" \
  bash -c "[ \"\$(wc -l <'$TMP/err')\" -eq 1 ] && grep -q 'exited during the window' '$TMP/err'"

# Bad arguments.
expect_usage_error --seconds 1
expect_usage_error --pid "$burner"
expect_usage_error --pid abc --seconds 1
expect_usage_error --pid "$burner" --seconds 0
expect_usage_error --pid "$burner" --seconds 1 --interval 5
expect_usage_error --pid "$burner" --seconds 1 --bogus
expect_usage_error --pid "$burner" --seconds 1 extra
expect_usage_error --pid "$burner" --seconds 1 --log "$TMP/no-such.log"

[ "$fails" -eq 0 ]
