#!/usr/bin/env bash
# profiles/modernuo.json, unchanged, against a ModernUO-shaped checkout whose
# Distribution/ModernUO is refshard: the profile's paths, settings, readiness on port 2593
# and 15 s loop lines must all be right for the campaign to work.
source "$(dirname "$0")/lib.sh"

if (exec 3<>/dev/tcp/127.0.0.1/2593) 2>/dev/null; then
  skip_test "something already listens on 127.0.0.1:2593"
fi

mu=$TMP/ModernUO
mkdir -p "$mu/Distribution/Configuration"
cp "$SOURCE_ROOT/profiles/modernuo.json" "$mu/modernuo.json"
cp "$REFSHARD" "$mu/Distribution/ModernUO"
# The reference's shape: string settings, unknown top-level keys, a setting the server
# will add itself (so the file is rewritten by the target during each run).
cat >"$mu/Distribution/Configuration/modernuo.json" <<'JSON'
{
  "assemblyDirectories": ["./Assemblies"],
  "dataDirectories": ["/srv/uo/data"],
  "listeners": ["127.0.0.1:2593"],
  "settings": {
    "autosave.enabled": "True",
    "pathfinding.prebakeMaps": "True",
    "server.eventLoopIdleWaitMs": "2"
  }
}
JSON
cp "$mu/Distribution/Configuration/modernuo.json" "$TMP/original.json"

rc=0
"$LOOPBENCH" run "$mu/modernuo.json" -s 0,2 -n 1 -w 1 -t 16 -o "$TMP/out" -q >"$TMP/table.txt" 2>"$TMP/err.txt" || rc=$?
cat "$TMP/table.txt" "$TMP/err.txt"
res=$TMP/out/results.json
check "the campaign completes (exit 0)" [ "$rc" -eq 0 ]
# 1875 turns = 15 s of 8 ms ticks: the fixed server.loopStatsIntervalSeconds reached it
# (refshard's default writes no loop line). A window can hold one turn more, depending on
# where its edges fall; a loop that other processes kept off its CPU turns late, so a
# loaded host takes some away (1873 seen beside two spinning processes), never 5%.
check "one 15 s loop line per window, 1782-1876 turns (fixed setting applied)" jq -e 'all(.runs[];
  .windows == 1 and .metrics.slots.total_sum >= 1782 and .metrics.slots.total_sum <= 1876)' "$res"
check "the knob reached the server (idleWait= in its loop line)" jq -e '
  (.runs[] | select(.setting == "0") | .metrics.idleWait.mean) == 0 and
  (.runs[] | select(.setting == "2") | .metrics.idleWait.mean) == 2' "$res"
check "headless mode seen in the log" grep -q "Headless mode detected" "$TMP/out/runs/0-1/stdout.log"
check "the operator's modernuo.json is byte-identical afterwards" \
  cmp -s "$mu/Distribution/Configuration/modernuo.json" "$TMP/original.json"
check "no process left" no_process_from "$mu"

[ "$fails" -eq 0 ]
