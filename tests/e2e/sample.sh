#!/usr/bin/env bash
# End-to-end tests of `loopbench sample --pid` on a real process: the burner.
# Needs LOOPBENCH and BURNER (set by meson) and jq.
set -euo pipefail

: "${LOOPBENCH:?set LOOPBENCH to the loopbench binary}"
: "${BURNER:?set BURNER to the burner binary}"
command -v jq >/dev/null || { echo "jq is missing: apt-get install -y jq"; exit 1; }

tmp=$(mktemp -d)
started=()
cleanup() {
    for pid in "${started[@]}"; do
        kill -9 "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*"
    exit 1
}

ok() {
    echo "ok: $*"
}

# within X LOW HIGH: LOW <= X <= HIGH
within() {
    awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'
}

# Run loopbench, keeping its exit status, stdout and stderr.
lb() {
    set +e
    "$LOOPBENCH" "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    set -e
}

# expect_usage_error ARGS...: exit 2 and one error line plus the usage hint.
expect_usage_error() {
    lb sample "$@"
    [ "$status" -eq 2 ] || fail "sample $* exited $status, not 2"
    grep -q '^loopbench: sample' "$tmp/err" || fail "sample $*: no error line: $(cat "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "sample $*: wrote to stdout"
    ok "sample $* is refused with exit 2: $(head -n 1 "$tmp/err")"
}

"$BURNER" --share 0.25 --seconds 120 >/dev/null &
burner=$!
started+=("$burner")
sleep 0.3

# The share of a steady burner, and the JSON a script relies on.
lb sample --pid "$burner" --seconds 3 --interval 500 --json
[ "$status" -eq 0 ] || fail "sample exited $status: $(cat "$tmp/err")"
cpu=$(jq .cpu_percent "$tmp/out")
within "$cpu" 23 27 || fail "a 25% burner read as $cpu%"
ok "a 25% burner reads $cpu% of one core"

jq -e 'has("cpu_percent") and has("cpu_seconds") and has("wall_seconds") and has("cpu_source")
       and has("resolution_ns") and has("unreliable") and has("series")
       and has("loopbench_cpu_seconds") and has("loopbench_max_rss_kib")' "$tmp/out" >/dev/null ||
    fail "keys missing from --json: $(jq -c 'keys' "$tmp/out")"
jq -e '.cpu_source == "process-tree-clocks" and .unreliable == false
       and (.wall_seconds >= 3 and .wall_seconds < 3.2)
       and (.cpu_seconds > 0.6 and .cpu_seconds < 0.9)' "$tmp/out" >/dev/null ||
    fail "--json figures are off: $(jq -c 'del(.series)' "$tmp/out")"
ok "--json has the documented keys and consistent figures"

points=$(jq '.series | length' "$tmp/out")
[ "$points" -eq 6 ] || fail "3 s at 500 ms gave $points points, not 6"
jq -e '[.series[] | .cpu_percent > 15 and .cpu_percent < 35 and .rss_bytes > 0] | all' \
    "$tmp/out" >/dev/null || fail "series points are off: $(jq -c .series "$tmp/out")"
ok "the series has one point per interval"

# Text output.
lb sample --pid "$burner" --seconds 1
[ "$status" -eq 0 ] || fail "sample (text) exited $status: $(cat "$tmp/err")"
grep -q "^pid $burner: .*% of one core over 1\.0" "$tmp/out" ||
    fail "text output: $(cat "$tmp/out")"
grep -q "process-tree-clocks" "$tmp/out" || fail "text output names no source: $(cat "$tmp/out")"
ok "text output gives the share, the source and the series"

# --log: only the marker lines the log gained during the window count.
log="$tmp/server.log"
{
    printf '[%s INF] loop: cpu=50%% cps=9999\n' "$(date -d '-1 hour' +%H:%M:%S)"
    printf 'loop: cps=9999 (a line without a time, before the window)\n'
    printf '[%s INF] Server started\n' "$(date +%H:%M:%S)"
} >"$log"
(
    for _ in 1 2 3 4 5 6 7 8; do
        printf '[%s INF] loop: cpu=0.8%% slots=1/1875 tickLagPeak=11ms cps=412\n' \
            "$(date +%H:%M:%S)"
        sleep 0.25
    done
) >>"$log" &
started+=($!)
lb sample --pid "$burner" --seconds 1.5 --log "$log" --json
[ "$status" -eq 0 ] || fail "sample --log exited $status: $(cat "$tmp/err")"
jq -e '.metrics.cps.windows >= 3 and .metrics.cps.max == 412 and .metrics.cps.min == 412
       and .metrics.slots.type == "ratio" and .log.marker_lines >= 3' "$tmp/out" >/dev/null ||
    fail "--log metrics are off: $(jq -c '{log, metrics}' "$tmp/out")"
ok "--log aggregates the $(jq .log.marker_lines "$tmp/out") marker lines of the window only"

# A process that is gone: at the start, and during the window.
sh -c 'exit 0' &
dead=$!
wait "$dead" || true
lb sample --pid "$dead" --seconds 1
[ "$status" -eq 1 ] || fail "a dead pid exited $status, not 1"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "a dead pid gave more than one line: $(cat "$tmp/err")"
grep -q "^loopbench: no process with pid $dead\$" "$tmp/err" || fail "dead pid: $(cat "$tmp/err")"
ok "a dead pid exits 1 with one line: $(cat "$tmp/err")"

"$BURNER" --share 0.1 --exit-after 0.5 0 >/dev/null &
short=$!
started+=("$short")
lb sample --pid "$short" --seconds 5 --interval 200
[ "$status" -eq 1 ] || fail "a pid that exits during the window exited $status, not 1"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "exit during the window: $(cat "$tmp/err")"
grep -q "exited during the window" "$tmp/err" || fail "exit during the window: $(cat "$tmp/err")"
ok "a pid that exits during the window exits 1: $(cat "$tmp/err")"

# Bad arguments.
expect_usage_error --seconds 1
expect_usage_error --pid "$burner"
expect_usage_error --pid abc --seconds 1
expect_usage_error --pid "$burner" --seconds 0
expect_usage_error --pid "$burner" --seconds 1 --interval 5
expect_usage_error --pid "$burner" --seconds 1 --bogus
expect_usage_error --pid "$burner" --seconds 1 extra
expect_usage_error --pid "$burner" --seconds 1 --log "$tmp/no-such.log"
