#!/usr/bin/env bash
# Rotation inside the window (run --order duet --rotate SECONDS) on real processes: the
# targets' whole trees swap CPUs every interval, so each spends about half of every
# window on each CPU; the target reads its own and its child's affinity from /proc through
# the window, and results.json records the swaps and the time on each CPU set.
source "$(dirname "$0")/lib.sh"

if [ "$(nproc)" -lt 2 ]; then
  skip_test "rotation needs 2 CPUs, this host has $(nproc)"
fi
# Every 50 ms: the time, then the CPUs the target and its child may run on.
cat >"$TMP/turner.sh" <<'SH'
#!/bin/sh
cpus() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"; }
sh -c 'while :; do sleep 1; done' &
kid=$!
trap 'kill $kid; exit 0' TERM
echo ready
while :; do
  echo "at $(date +%s.%N) $(cpus $$) $(cpus $kid)"
  sleep 0.05
done
SH
chmod +x "$TMP/turner.sh"
cat >"$TMP/turner.json" <<JSON
{ "name": "turner", "command": ["$TMP/turner.sh", "{value}"],
  "knob": { "name": "x", "values": ["a", "b"], "argv": {} },
  "ready": { "log": "^ready$", "timeout": 10 }, "stop": { "grace": 2 } }
JSON
# shares DIR WINDOW: per run, the share of its window's time in which the target, and
# its child, were found on each CPU, as "setting self0 self1 child0 child1". The target
# is stopped as its window ends: the window is the WINDOW seconds before its last
# reading (results.json's edges are to the second), less 0.1 s at each end.
shares() {
  python3 - "$1" "$2" <<'PY'
import json, sys
d, window = sys.argv[1], float(sys.argv[2])
for r in json.load(open(d + "/results.json"))["runs"]:
    lines = [l.split() for l in open(d + "/" + r["stdout_log"])]
    lines = [f for f in lines if len(f) == 4 and f[0] == "at"]
    end = float(lines[-1][1])
    inside = [f for f in lines if end - window + 0.1 <= float(f[1]) <= end - 0.1]
    # each reading stands for the time to the next: a target on a busier CPU reads less often
    spans = [float(b[1]) - float(a[1]) for a, b in zip(inside, inside[1:])]
    total = sum(spans) or 1
    out = [r["setting"]]
    for col in (2, 3):
        out += ["%.2f" % (sum(t for f, t in zip(inside, spans) if f[col] == c) / total)
                for c in ("0", "1")]
    print(" ".join(out))
PY
}

# --- --rotate 0.5 over a 4 s window -------------------------------------------------
rc=0
"$LOOPBENCH" run "$TMP/turner.json" --order duet --rotate 0.5 -n 1 -w 0.2 -t 4 -o "$TMP/rot" -q \
  >/dev/null 2>"$TMP/rot.err" || rc=$?
res=$TMP/rot/results.json
check "--order duet --rotate 0.5: the campaign exits 0" [ "$rc" -eq 0 ]
check "  ... recorded: campaign.rotate_seconds, 7 swaps a run, about 2 s on each CPU" jq -e '
  .campaign.rotate_seconds == 0.5 and ([.runs[] | .rotation.swaps == 7
    and ([.rotation.cpu_sets[].cpus] == ["0", "1"])
    and ([.rotation.cpu_sets[].seconds | . > 1.7 and . < 2.3] | all)] | all)' "$res"
shares "$TMP/rot" 4 >"$TMP/rot.shares" || true
cat "$TMP/rot.shares"
check "  ... each target and its child saw both CPUs, 25-75% of the window on each" \
  awk '{ for (i = 2; i <= 5; i++) if ($i < 0.25 || $i > 0.75) exit 1 } END { exit NR != 2 }' \
  "$TMP/rot.shares"
check "  ... what other processes took of the CPUs is recorded for the CPUs turned through" \
  jq -e '[.runs[].host_cpus | .cpus == "0-1" and .others_percent >= 0 and (.idle_states | type) == "array"] | all' "$res"

# --- --rotate 0: today's duet, each target on one CPU through its window ----------------
rc=0
"$LOOPBENCH" run "$TMP/turner.json" --order duet --rotate 0 -n 1 -w 0.2 -t 1 -o "$TMP/still" -q \
  >/dev/null 2>&1 || rc=$?
shares "$TMP/still" 1 >"$TMP/still.shares" || true
check "--rotate 0: no swaps, each target and its child on one CPU through the window" bash -c "
  [ $rc -eq 0 ] && jq -e '(.campaign | has(\"rotate_seconds\") | not) and ([.runs[] | has(\"rotation\")] | any | not)' '$TMP/still/results.json' >/dev/null &&
  awk '{ for (i = 2; i <= 5; i++) if (\$i != 0 && \$i != 1) exit 1 } END { exit NR != 2 }' '$TMP/still.shares'"

# --- refusals ------------------------------------------------------------------------------
rc=0
"$LOOPBENCH" run "$TMP/turner.json" --rotate 0.5 -n 1 -o "$TMP/refused" >"$TMP/refused.txt" 2>&1 || rc=$?
check "--rotate without --order duet is refused (exit 2)" bash -c \
  "[ $rc -eq 2 ] && grep -q 'expected --order duet' '$TMP/refused.txt' && [ ! -e '$TMP/refused' ]"
rc=0
"$LOOPBENCH" run "$TMP/turner.json" --order duet --rotate x -o "$TMP/refused" >"$TMP/refused.txt" 2>&1 || rc=$?
check "--rotate that is not seconds is refused (exit 2)" bash -c \
  "[ $rc -eq 2 ] && grep -q -- \"--rotate 'x'\" '$TMP/refused.txt'"
check "no target left" no_process_from "$TMP"
