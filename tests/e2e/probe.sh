#!/usr/bin/env bash
# loopbench probe end to end: a short probe, its JSON's shape and sanity, the text.
source "$(dirname "$0")/lib.sh"

rc=0
"$LOOPBENCH" probe --seconds 2 --json >"$TMP/probe.json" 2>"$TMP/probe.err" || rc=$?
check "probe --json exits 0" [ "$rc" -eq 0 ]
j=$TMP/probe.json
check "schema and host facts" jq -e '.schema == "loopbench/probe/1"
  and (.host.logical_cpus >= 1) and (.host.os|type) == "string"
  and (.host.clock_resolution_ns > 0) and (.seconds > 0)' "$j"
check "four operation costs, positive, with a reference and a verdict" jq -e '(.costs|length) == 4
  and all(.costs[]; (.operation|type) == "string" and .reference_ns > 0
    and (.ns_per_op == null or (.ns_per_op > 0 and .iterations > 0
      and (.verdict == "normal" or .verdict == "SLOW" or .verdict == "TRAPPING"))))
  and all(.costs[0:3][]; .ns_per_op > 0)' "$j"
check "16 wake figures: both primitives, 1/2/4/8 ms, quiet and contended" jq -e '(.wakes|length) == 16
  and ([.wakes[] | [.primitive, .requested_ms, .contended]] | unique | length) == 16
  and ([.wakes[].primitive] | unique) == ["epoll_wait", "nanosleep"]
  and ([.wakes[].requested_ms] | unique) == [1, 2, 4, 8]' "$j"
check "overshoots sane: 0 <= min <= p50 <= p99 <= max, a share in [0, 1]" jq -e 'all(.wakes[];
  .waits >= 3 and .overshoot_ms.min >= 0 and .overshoot_ms.min <= .overshoot_ms.p50
  and .overshoot_ms.p50 <= .overshoot_ms.p99 and .overshoot_ms.p99 <= .overshoot_ms.max
  and .tick_late_share >= 0 and .tick_late_share <= 1)' "$j"
check "contended with a busy process per CPU" jq -e '.busy_processes == .host.logical_cpus' "$j"
check "steal is a percentage" jq -e '.steal_percent == null or (.steal_percent >= 0 and .steal_percent <= 100)' "$j"
check "a verdict with advice" jq -e '(.verdict.idle_sleep_viable|type) == "boolean"
  and (.verdict.advice|length) >= 1' "$j"

rc=0
"$LOOPBENCH" probe --seconds 1 >"$TMP/probe.txt" 2>&1 || rc=$?
check "probe (text) exits 0" [ "$rc" -eq 0 ]
check "  ... prints the operations" grep -q "^monotonic clock read" "$TMP/probe.txt"
check "  ... the waits" grep -q "^epoll_wait .* busy x" "$TMP/probe.txt"
check "  ... and the verdict" grep -q "^verdict" "$TMP/probe.txt"

rc=0
"$LOOPBENCH" probe --seconds 0 2>"$TMP/bad.err" || rc=$?
check "--seconds 0 is bad usage (exit 2)" [ "$rc" -eq 2 ]
check "  ... naming the option" grep -q "probe: --seconds '0'" "$TMP/bad.err"

# Interrupted while the busy processes run: they are stopped before loopbench exits.
"$LOOPBENCH" probe --seconds 10 >/dev/null 2>&1 &
lb=$!
PIDS+=("$lb")
kids=
for _ in $(seq 90); do # the contended waits start after about 5.5 s
  kids=$(pgrep -P "$lb" || true)
  [ -n "$kids" ] && break
  sleep 0.1
done
check "busy processes run during the contended waits" [ -n "$kids" ]
kill -INT "$lb"
rc=0
wait "$lb" || rc=$?
check "interrupted probe exits 130" [ "$rc" -eq 130 ]
left=0
for k in $kids; do if kill -0 "$k" 2>/dev/null; then left=1; fi; done
check "  ... and leaves no busy process" [ "$left" -eq 0 ]
