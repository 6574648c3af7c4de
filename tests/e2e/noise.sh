#!/usr/bin/env bash
# Noise warnings: a campaign run while a burner spins on every core records that other
# processes used the CPU, in results.json and under the report's table.
source "$(dirname "$0")/lib.sh"

# Under this test's directory, so that the orphan check finds any left behind.
cp "$BURNER" "$TMP/burner"
cat >"$TMP/light.json" <<JSON
{ "name": "light-burner", "command": ["$TMP/burner", "--share", "{value}", "--forever"],
  "knob": { "name": "share", "values": ["0.05"], "argv": {} },
  "ready": { "delay": 0 }, "stop": { "grace": 2 } }
JSON

for _ in $(seq "$(nproc)"); do
  "$TMP/burner" --share 1 --forever >/dev/null 2>&1 &
  PIDS+=("$!")
done
sleep 0.5
rc=0
"$LOOPBENCH" run "$TMP/light.json" -n 1 -w 0.5 -t 2 -o "$TMP/noisy" -q >"$TMP/noisy.txt" 2>&1 || rc=$?
kill "${PIDS[@]}" 2>/dev/null || true
wait "${PIDS[@]}" 2>/dev/null || true
PIDS=()
cat "$TMP/noisy.txt"
res=$TMP/noisy/results.json
check "the campaign exits 0" [ "$rc" -eq 0 ]
check "results.json has a warnings array" jq -e '(.warnings|type) == "array"' "$res"
check "  ... saying other processes used the CPU" \
  jq -e 'any(.warnings[]; test("other processes used more than 10% of a core"))' "$res"
check "the run records the others' CPU (most of the other cores) and its flags" jq -e '.runs[0]
  | .others_cpu_percent > 50 and .noise.other_processes == true
  and (.noise.steal|type) == "boolean" and (.noise.outlier|type) == "boolean"
  and (.loopbench_cpu_seconds|type) == "number" and (.involuntary_ctxsw|type) == "number"' "$res"
check "the load before the campaign is recorded" jq -e '.host.loadavg[0] >= 0' "$res"
check "the report shows the warning under the table" \
  grep -q "^warning: other processes used more than 10% of a core" "$TMP/noisy.txt"
"$LOOPBENCH" report "$TMP/noisy" --no-plots -o "$TMP/noisy.md" >/dev/null 2>&1
check "loopbench report carries the warning into its method footnote" \
  grep -q "other processes used more than 10% of a core" "$TMP/noisy.md"
check "no burner left" no_process_from "$TMP"
