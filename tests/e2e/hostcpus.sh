#!/usr/bin/env bash
# What the host's CPUs did in each window (results.json runs[].host_cpus): the cpuidle
# counters of the target's CPUs, read on a fake sysfs tree ($LOOPBENCH_TEST_SYSFS, for
# tests only) whose counters the target itself moves through its run; a host without a
# cpuidle driver said so once, and a real one's counters falling as refshard's idle wait grows;
# other processes' share of the target's CPU.
source "$(dirname "$0")/lib.sh"

if [ "$(nproc)" -lt 2 ]; then
  skip_test "pinning needs 2 CPUs, this host has $(nproc)"
fi
SYS=$TMP/sys
mkdir -p "$SYS/devices/system/cpu/cpuidle"
echo haltpoll >"$SYS/devices/system/cpu/cpuidle/current_driver"
state() { # state CPU K NAME USAGE TIME
  local d=$SYS/devices/system/cpu/cpu$1/cpuidle/state$2
  mkdir -p "$d"
  echo "$3" >"$d/name"
  echo "$4" >"$d/usage"
  echo "$5" >"$d/time"
  echo 7 >"$d/above"
  echo 0 >"$d/below"
}
state 1 0 POLL 100 5000
state 1 1 haltpoll 2000 900000
# The target enters "haltpoll" 10 times and spends 1000 us in it every 0.1 s.
cat >"$TMP/idler.sh" <<SH
#!/bin/sh
d=$SYS/devices/system/cpu/cpu1/cpuidle/state1
echo ready
while :; do
  echo \$((\$(cat \$d/time) + 1000)) >\$d/time.new && mv \$d/time.new \$d/time
  echo \$((\$(cat \$d/usage) + 10)) >\$d/usage.new && mv \$d/usage.new \$d/usage
  sleep 0.1
done
SH
chmod +x "$TMP/idler.sh"
cat >"$TMP/idler.json" <<JSON
{ "name": "idler", "command": ["$TMP/idler.sh", "{value}"],
  "knob": { "name": "x", "values": ["a"], "argv": {} },
  "ready": { "log": "^ready$", "timeout": 10 }, "stop": { "grace": 2 } }
JSON

rc=0
LOOPBENCH_TEST_SYSFS=$SYS "$LOOPBENCH" run "$TMP/idler.json" --cpus 1 -n 1 -w 0.2 -t 1.5 \
  -o "$TMP/fake" >/dev/null 2>"$TMP/fake.err" || rc=$?
res=$TMP/fake/results.json
check "a fake cpuidle tree: the campaign exits 0 and records its driver" \
  bash -c "[ $rc -eq 0 ] && jq -e '.campaign.cpuidle_driver == \"haltpoll\"' '$res' >/dev/null"
check "  ... the window's counters of the target's CPU, per state, as deltas" jq -e '
  .runs[0].host_cpus as $h | $h.cpus == "1" and ($h.idle_states | length) == 2
  and ($h.idle_states[0] | .cpu == 1 and .state == "POLL" and .usage == 0 and .time_us == 0
       and .above == 0 and .below == 0)
  and ($h.idle_states[1] | .cpu == 1 and .state == "haltpoll" and .usage >= 80 and .usage <= 200
       and (.time_us - .usage * 100 | fabs) <= 1000)' "$res"
check "  ... and no word of a missing driver" bash -c "! grep -q 'no cpuidle driver' '$TMP/fake.err'"
# The registry's idle metrics (src/model/metric.c) against what the counters moved: the
# window's haltpoll entries over its wall time, and its residency over the window (the loop
# aims at 100 entries a second and 1%, but under load it runs slower: compare with what it
# did, not with what it meant to).
"$LOOPBENCH" report "$TMP/fake" -f csv -o "$TMP/fake.csv" 2>/dev/null
check "  ... reported as idle entries per second and each state's share of the window" python3 -c "
import csv, json, sys
row = next(r for r in csv.DictReader(open(sys.argv[1])) if r['kind'] == 'run')
run = json.load(open(sys.argv[2]))['runs'][0]
halt = next(s for s in run['host_cpus']['idle_states'] if s['state'] == 'haltpoll')
wall = run['wall_seconds']
e, h = float(row['idle_entries_per_s']), float(row['idle_haltpoll_percent'])
want_e, want_h = halt['usage'] / wall, halt['time_us'] / (wall * 1e6) * 100
near = lambda x, y: abs(x - y) <= 0.01 * y
sys.exit(not (halt['usage'] > 0 and near(e, want_e) and near(h, want_h)
              and float(row['idle_POLL_percent']) == 0))" "$TMP/fake.csv" "$res"

# --- the host as it is, with a competitor on the target's CPU -----------------------------
if [ "$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)" = none ]; then
  taskset -c 1 "$BURNER" --share 0.5 --forever >/dev/null &
  PIDS+=("$!")
  rc=0
  "$LOOPBENCH" run "$TMP/idler.json" --cpus 1 -n 1 -w 0.2 -t 1.5 -o "$TMP/host" \
    >/dev/null 2>"$TMP/host.err" || rc=$?
  kill -9 "${PIDS[-1]}" 2>/dev/null || true
  check "no cpuidle driver: said once, recorded as null, no idle states" bash -c "
    [ $rc -eq 0 ] && [ \$(grep -c 'the host has no cpuidle driver' '$TMP/host.err') -eq 1 ] &&
    jq -e '.campaign.cpuidle_driver == null and .runs[0].host_cpus.idle_states == []' '$TMP/host/results.json' >/dev/null"
  check "  ... a competitor at half a core on the target's CPU is counted, the target's own CPU is not" \
    jq -e '.runs[0] | .host_cpus.others_percent >= 30
      and .host_cpus.others_percent + .cpu_percent <= 105' "$TMP/host/results.json"
else
  # A real cpuidle driver: refshard pinned to CPU 1 at idle wait 0, 2 and 8. Its CPU
  # leaves an idle state once per wake-up, so entries fall as the wait grows, and a
  # spinning loop never lets its CPU idle (the kernel's own counters: nothing to fake).
  # Other processes on CPU 1 keep it from idling too: a spinning loop's figure holds under
  # any load, the fall only where they left the CPU mostly idle (under a quarter of it, by
  # the campaign's own runs[].host_cpus.others_percent); else the campaign runs once more.
  for attempt in 1 2; do
    rm -rf "$TMP/real"
    "$LOOPBENCH" run "$SOURCE_ROOT/profiles/refshard.json" -s 0,2,8 --cpus 1 -n 1 -w 0.5 -t 2 \
      -o "$TMP/real" -q >/dev/null 2>"$TMP/real.err" || true
    "$LOOPBENCH" report "$TMP/real" -f csv -o "$TMP/real.csv" >/dev/null 2>&1
    others=$(jq '[.runs[] | select(.setting != "0") | .host_cpus.others_percent] | max | round' \
      "$TMP/real/results.json")
    entries=$(python3 -c "
import csv, sys
print({r['setting']: float(r['idle_entries_per_s']) for r in csv.DictReader(open(sys.argv[1])) if r['kind'] == 'run'})" "$TMP/real.csv")
    echo "attempt $attempt: idle entries per second by idle wait: $entries; other processes used up to $others% of CPU 1"
    [ "$others" -lt 25 ] && break
  done
  check "a real driver, refshard pinned: spinning, its CPU never idles" python3 -c "
import sys; sys.exit(not ($entries['0'] < 5))"
  if [ "$others" -lt 25 ]; then
    check "  ... and idle entries per second fall as the wait grows" python3 -c "
import sys; e = $entries; sys.exit(not (e['8'] < e['2'] and 60 < e['8']))"
  else
    echo "skip: the fall of idle entries with the wait: other processes used $others% of CPU 1 in both attempts"
  fi
fi
# An unpinned campaign on the fake tree: its runs' counters would be every CPU's, so the
# report says once why it has no idle figures.
LOOPBENCH_TEST_SYSFS=$SYS "$LOOPBENCH" run "$TMP/idler.json" -n 1 -w 0.2 -t 0.5 -o "$TMP/loose" \
  >/dev/null 2>&1
"$LOOPBENCH" report "$TMP/loose" --no-plots -o "$TMP/loose.md" 2>/dev/null
check "unpinned: the report says once why there are no idle figures" bash -c "
  [ \$(grep -o 'No idle-state figures: the targets were not pinned' '$TMP/loose.md' | wc -l) -eq 1 ]"
check "no target left" no_process_from "$TMP"
