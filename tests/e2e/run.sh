#!/usr/bin/env bash
# loopbench run end to end: real campaigns of refshard and of small targets. How exactly a
# window reads a target's CPU, run directly, behind a shell, in threads, children and a
# double-forked grandchild, is tests/e2e/accuracy.sh's.
source "$(dirname "$0")/lib.sh"

# A private copy of the reference profile, so the test edits its own config and the
# command line names this test's directory (for the orphan check).
mkdir -p "$TMP/ref"
cp "$SOURCE_ROOT/profiles/refshard.json" "$SOURCE_ROOT/profiles/refshard.config.json" "$TMP/ref/"
cp "$REFSHARD" "$TMP/ref/refshard"
sed -i 's|{loopbench_dir}/refshard|./refshard|' "$TMP/ref/refshard.json"
cp "$TMP/ref/refshard.config.json" "$TMP/ref/original.json"

# --- 1. the A/B campaign: four runs interleaved -----------------------------------
out=$TMP/ab
rc=0
"$LOOPBENCH" run "$TMP/ref/refshard.json" -s 0,2 -n 2 -w 1 -t 3 -o "$out" -q >"$TMP/ab.txt" 2>"$TMP/ab.err" || rc=$?
check "run exits 0" [ "$rc" -eq 0 ]
cat "$TMP/ab.txt"
res=$out/results.json
check "four runs, interleaved 0 2 0 2" \
  [ "$(jq -r '[.runs[].setting] | join(" ")' "$res")" = "0 2 0 2" ]
check "results.json validates against the documented schema" \
  jq -e -f "$SOURCE_ROOT/tests/data/results-schema.jq" "$res"
check "four runs and two summary entries" jq -e '(.runs|length) == 4 and (.summary|length) == 2' "$res"
check "every run has the fixed keys" jq -e 'all(.runs[]; has("setting") and has("repeat")
  and .status == "ok" and (.started_at|type) == "string" and (.cpu_seconds|type) == "number"
  and (.wall_seconds|type) == "number" and (.cpu_percent|type) == "number"
  and (.metrics|type) == "object")' "$res"
check "summary has setting, baseline, runs, cpu_percent{median,min,max}" jq -e 'all(.summary[];
  (.setting|type) == "string" and (.baseline|type) == "boolean" and .runs == 2
  and (.cpu_percent | has("median") and has("min") and has("max")))' "$res"
cpu0=$(jq '.summary[] | select(.setting == "0") | .cpu_percent.median' "$res")
cpu2=$(jq '.summary[] | select(.setting == "2") | .cpu_percent.median' "$res")
echo "cpu at 0: $cpu0 %, at 2: $cpu2 %"
# Other processes can take the spinning loop's core, not make a sleeping one spin: the
# spinner judged against the sleeper beside it, the sleeper by a bound load cannot reach.
check "idle wait 0 uses 5x or more what idle wait 2 does" gt "$cpu0" "$(awk -v c="$cpu2" 'BEGIN { print 5 * c }')"
check "idle wait 2 uses a small fraction of a core (< 20%)" lt "$cpu2" 20
check "0 is the baseline" jq -e '.summary[0].baseline == true and .summary[1].baseline == false' "$res"
check "health lines scraped in every window" jq -e 'all(.runs[]; .windows >= 1
  and (.metrics.slots.type == "ratio") and (.metrics.tickLagPeak.type == "duration_ms"))' "$res"
check "at 0 the loop never slept" jq -e 'all(.runs[] | select(.setting == "0"); .metrics.sleeps.sum == 0)' "$res"
check "series written for each run" test "$(ls "$out"/runs/*/series.csv | wc -l)" -eq 4
check "table printed with the baseline marked" grep -q "0 (baseline)" "$TMP/ab.txt"
check "config byte-identical after the campaign" cmp -s "$TMP/ref/refshard.config.json" "$TMP/ref/original.json"
check "no refshard left" no_process_from "$TMP/ref"
check "an existing non-empty --out is refused (exit 1)" bash -c \
  "! '$LOOPBENCH' run '$TMP/ref/refshard.json' -n 1 -w 0 -t 1 -o '$out' -q 2>'$TMP/refuse.err'"
check "  ... saying why" grep -q "exists and is not empty" "$TMP/refuse.err"

# --- 2. knobs through argv and through the environment -------------------------------
# The burner says which share it was asked, and its window reads what it measured itself
# (lib.sh: it sleeps 1 s, burns 1 s, sleeps until stopped; the window holds the burn).
cat >"$TMP/argv.json" <<JSON
{ "name": "argv-burner", "command": ["$BURNER", "--share", "{value}", "--delay", "1", "--seconds", "1", "--linger"],
  "knob": { "name": "share", "values": ["0.10", "0.40"], "argv": {} },
  "ready": { "log": "^burner: started", "timeout": 10 }, "stop": { "grace": 2 } }
JSON
# started_at CAMPAIGN I SHARE: run I's burner says it was started at SHARE.
started_at() { grep -qx "burner: started pid=[0-9]* share=$3" "$(run_log "$1" "$2")"; }
# two_shares KIND: run KIND.json at shares 0.10 and 0.40: each burner was started with its
# value, and each window read what that burner used in it.
two_shares() {
  local kind=$1 i
  "$LOOPBENCH" run "$TMP/$kind.json" -n 1 -w 0 -t 2.4 -o "$TMP/$kind" -q >/dev/null
  for i in 0 1; do
    echo "$kind knob, run $i: loopbench read $(jq ".runs[$i].cpu_percent" "$TMP/$kind/results.json") %," \
      "the burner used $(slept_truth "$TMP/$kind" $i) % of the window"
  done
  check "$kind knob applied: the burner of the first run was started at share 0.10" started_at "$TMP/$kind" 0 0.1
  check "  ... and that of the second at 0.40" started_at "$TMP/$kind" 1 0.4
  check "  ... the first window read what its burner used in it" reads_truth "$TMP/$kind" 0
  check "  ... and the second" reads_truth "$TMP/$kind" 1
}
two_shares argv

cat >"$TMP/env.json" <<JSON
{ "name": "env-burner", "command": ["sh", "-c", "exec \"\$BURNER_BIN\" --share \"\$SHARE\" --delay 1 --seconds 1 --linger"],
  "env": { "BURNER_BIN": "$BURNER" },
  "knob": { "name": "share", "values": ["0.10", "0.40"], "env": "SHARE" },
  "ready": { "log": "^burner: started", "timeout": 10 }, "stop": { "grace": 2 } }
JSON
two_shares env

# --- orders: grouped keeps a setting's repeats together; random is replayable by seed --
order_of() { jq -r '[.runs[].setting] | join(" ")' "$1/results.json"; }
"$LOOPBENCH" run "$TMP/argv.json" -n 2 -w 0 -t 0.3 --order grouped -o "$TMP/grouped" -q >/dev/null
check "--order grouped runs 0.10 0.10 0.40 0.40" [ "$(order_of "$TMP/grouped")" = "0.10 0.10 0.40 0.40" ]
"$LOOPBENCH" run "$TMP/argv.json" -n 3 -w 0 -t 0.3 --order random --seed 7 -o "$TMP/random1" -q >/dev/null
"$LOOPBENCH" run "$TMP/argv.json" -n 3 -w 0 -t 0.3 --order random --seed 7 -o "$TMP/random2" -q >/dev/null
check "--order random with one seed gives one order ($(order_of "$TMP/random1"))" \
  [ "$(order_of "$TMP/random1")" = "$(order_of "$TMP/random2")" ]
check "  ... every round holds each setting once, and the seed is recorded" jq -e '
  ([.runs[].setting] as $s | [range(0; 3) | $s[2 * . : 2 * . + 2] | sort] | all(. == ["0.10", "0.40"]))
  and .campaign.seed == 7 and .campaign.order == "random"' "$TMP/random1/results.json"

# --- 3. a target that dies during warm-up -------------------------------------------
cat >"$TMP/crash.json" <<JSON
{ "name": "crash", "command": ["sh", "-c", "echo starting; echo 'fatal: no world' >&2; exit 3"],
  "knob": { "name": "unused", "values": ["a"], "env": "UNUSED" },
  "ready": { "delay": 0 }, "stop": { "grace": 1 } }
JSON
set +e
"$LOOPBENCH" run "$TMP/crash.json" -n 1 -w 2 -t 1 -o "$TMP/crash" >/dev/null 2>"$TMP/crash.err"
rc=$?
set -e
check "a target that exits in warm-up fails the campaign (exit 1)" [ "$rc" -eq 1 ]
check "  ... with its exit status in the message" grep -q "exited with status 3" "$TMP/crash.err"
check "  ... and the last lines of its log" grep -q "fatal: no world" "$TMP/crash.err"
check "  ... recorded as failed in results.json" jq -e '.runs[0].status == "failed" and .runs[0].exit.status == 3' "$TMP/crash/results.json"

# --- 4. SIGINT and SIGTERM mid-sample: config restored, nothing left, exit 130/143 ---
for sig in INT TERM; do
  out=$TMP/sig-$sig
  "$LOOPBENCH" run "$TMP/ref/refshard.json" -s 0,2 -n 1 -w 1 -t 30 -o "$out" 2>"$TMP/sig-$sig.err" >/dev/null &
  lb=$!
  PIDS+=("$lb")
  for _ in $(seq 1 200); do grep -q ": sample" "$TMP/sig-$sig.err" 2>/dev/null && break; sleep 0.05; done
  sleep 1
  check "config edited while sampling (SIG$sig)" bash -c "! cmp -s '$TMP/ref/refshard.config.json' '$TMP/ref/original.json'"
  kill -s "$sig" "$lb"
  set +e
  wait "$lb"
  rc=$?
  set -e
  want=$([ "$sig" = INT ] && echo 130 || echo 143)
  check "SIG$sig mid-sample exits $want" [ "$rc" -eq "$want" ]
  check "  ... config byte-identical to the original" cmp -s "$TMP/ref/refshard.config.json" "$TMP/ref/original.json"
  check "  ... no process of the target left" no_process_from "$TMP/ref"
  check "  ... the run is marked interrupted" jq -e '.runs[0].status == "interrupted" and .campaign.state == "interrupted"' "$out/results.json"
done

[ "$fails" -eq 0 ]
