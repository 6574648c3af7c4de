#!/usr/bin/env bash
# loopbench tune on real processes: a target whose knob trades CPU for a health key known
# exactly (lag = 2 x the knob, the CPU falling as the knob rises), so the true answer is
# known: under 'lag<=+5' over 0:6 it is 2 (3 gives lag 6). The search finds it, says
# why it stopped, keeps what was asked and found in results.json, and --resume after an
# interrupt reaches the same answer from the runs kept; a tampered campaign.tune is
# refused with a message naming it. --tie 0: the lowest CPU alone (the knob's CPU steps are
# the host's), its tie judged again by report with a tie that holds everything.
source "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/knob"
# A loop that wakes every (v + 1) x 10 ms: fewer wakes, less CPU, as the knob rises.
cat >"$TMP/knob/knob.json" <<'JSON'
{ "name": "knob", "command": ["sh", "-c", "v={value}; while :; do echo \"loop: lag=$((v * 2))\"; sleep 0.0$((v + 1)); done"],
  "cwd": ".",
  "knob": { "name": "period", "values": ["0", "6"], "baseline": "0", "argv": {} },
  "ready": { "delay": 0 }, "stop": { "grace": 2 },
  "metrics": { "marker": "loop: ", "health": [ { "key": "lag", "better": "lower" } ] } }
JSON
P=$TMP/knob/knob.json
args=(--range 0:6 --guard 'lag<=+5' --tie 0 -w 0 -t 0.4)

# One campaign, interrupted in its fourth round and resumed to the end: the answer, what
# results.json keeps and the report are checked on it (one tune's runs: the test is
# long enough on a busy host).
"$LOOPBENCH" tune "$P" "${args[@]}" -o "$TMP/t" 2>"$TMP/r.err" >/dev/null &
lb=$!
PIDS+=("$lb")
for _ in $(seq 1 1200); do grep -q "#4: sample" "$TMP/r.err" 2>/dev/null && break; sleep 0.05; done
kill -INT "$lb"
rc=0
wait "$lb" || rc=$?
check "an interrupted tune exits 130" [ "$rc" -eq 130 ]
res=$TMP/t/results.json
kept=$(jq '[.runs[] | select(.status == "ok")] | length' "$res")
first=$(jq -c '[.runs[] | select(.status == "ok") | .started_at]' "$res")
rc=0
"$LOOPBENCH" tune --resume "$TMP/t" -f json >"$TMP/t.json" 2>"$TMP/t.err" || rc=$?
tail -3 "$TMP/t.err"
check "--resume continues it ($kept runs kept) and exits 0 with a recommendation" [ "$rc" -eq 0 ]
check "  ... the runs that completed kept as they were" jq -e --argjson first "$first" '
  [.runs[] | .started_at][0:($first | length)] == $first and (.campaign.resumed_at | length) == 1' \
  "$res"
check "  ... the true answer, 2, saving CPU against 0" jq -e '.recommended.setting == "2"
  and .recommended.saving > 0 and .recommended.saving_lo > 0 and .stopped == "located"' "$TMP/t.json"
check "  ... 3 proven outside the guard, 2 within, nothing under 3 outside" jq -e '
  [.frontier[] | select(.verdict == "outside") | .setting | tonumber] as $out
  | ($out | min) == 3 and ([.frontier[] | select(.setting == "2")][0].verdict == "within")' \
  "$TMP/t.json"
check "  ... each guard with its figure, interval and power" jq -e '
  .frontier[] | select(.setting == "3") | .guards[0]
  | .guard == "lag<=+5" and .value == 6 and .verdict == "outside" and (.lo | type) == "number"' "$TMP/t.json"
check "  ... the lowest CPU within the guard is the answer (no tie asked)" jq -e '
  .best == "2" and .tie == 0 and ([.frontier[] | select(.setting == "2")][0].to_best == null)' \
  "$TMP/t.json"
check "results.json keeps what was asked and the answer" jq -e '.campaign.tune
  | .range == {"lo": 0, "hi": 6, "step": 1} and .guards == ["lag<=+5"] and .reference == "0"
  and .minimize == "cpu" and .tie == 0 and .recommended.setting == "2" and .stopped == "located"' "$res"
check "  ... every value of the grid is a setting, the runs only of those chosen" jq -e '
  .campaign.settings == ["0","1","2","3","4","5","6"] and (.runs | length) == (.campaign.plan | length)
  and ([.runs[].status] | unique) == ["ok"]' "$res"
check "  ... the reference runs in the coarse grid's rounds; a round without it runs settings within" \
  jq -e --slurpfile t "$TMP/t.json" '
  ([.runs[] | select(.setting == "0") | .repeat] | unique) as $with
  | ([.runs[] | .repeat] | unique | .[0:3]) - $with == []
  and ([.runs[] | select((.repeat | IN($with[])) | not) | .setting] | unique) as $alone
  | [$t[0].frontier[] | select(.setting | IN($alone[])) | .verdict] | all(. == "within")' "$res"
check "it says why it stopped" grep -q "rounds: located" "$TMP/t.err"
# a finished tune resumed runs nothing more: it prints its answer again
cp -r "$TMP/t" "$TMP/t2"
"$LOOPBENCH" tune --resume "$TMP/t2" -f md >"$TMP/t.md" 2>/dev/null || true
check "a finished tune resumed runs nothing more" jq -e --slurpfile a "$res" '
  (.runs | length) == ($a[0].runs | length)' "$TMP/t2/results.json"
check "the Markdown names the recommendation and marks its row" bash -c "
  grep -q '^\*\*Recommended: period = 2\*\*' '$TMP/t.md' && grep -q '^| \*\*→\*\* | 2 |' '$TMP/t.md'"
rc=0
"$LOOPBENCH" report "$TMP/t" --no-plots -o "$TMP/t/report.md" >/dev/null 2>&1 || rc=$?
check "report DIR states the recommendation, the frontier table and its chart" bash -c "
  [ $rc -eq 0 ] && grep -q '^\*\*Recommended: period = 2\*\*' '$TMP/t/report.md' &&
  grep -q '^| \*\*→\*\* | 2 |' '$TMP/t/report.md' && grep -q '^quadrantChart' '$TMP/t/report.md' &&
  grep -Eq '^    point 2: \[[0-9.]+, [0-9.]+\] radius: 10, color: #E53935' '$TMP/t/report.md'"
ran=$(jq '[.runs[].setting] | unique | length' "$res")
check "  ... a row and a line for each of the $ran values run, none for a value never run" bash -c "
  [ \$(grep -c '^| [0-9]' '$TMP/t/report.md') -eq $ran ] &&
  [ \$(grep -c '^- period [0-9]* against 0' '$TMP/t/report.md') -eq $((ran - 1)) ]" ||
  grep -E '^\| [0-9]|^- period|cannot test' "$TMP/t/report.md"
if command -v gnuplot >/dev/null; then
  "$LOOPBENCH" report "$TMP/t" --plots "$TMP/t/plots" -o "$TMP/t/report2.md" >/dev/null 2>&1 || true
  check "--plots draws the frontier: the recommended point at lag +4" bash -c "
    [ -s '$TMP/t/plots/frontier.svg' ] &&
    awk '/^# the recommended/ { on = 1; next } on && NF { print; exit }' '$TMP/t/plots/frontier.dat' |
      grep -Eq '^4 [0-9.]+$'"
fi
rc=0
"$LOOPBENCH" run --resume "$TMP/t" >/dev/null 2>"$TMP/run.err" || rc=$?
check "run --resume of a tune is refused, naming tune" bash -c "[ $rc -eq 2 ] &&
  grep -q 'a campaign of loopbench tune: continue it with loopbench tune --resume' '$TMP/run.err'"
check "no target left" no_process_from "$TMP/knob"

# a tie wider than any saving: every setting within ties with the lowest, and the answer is
# the one nearest the reference, the reference itself (report judges campaign.tune again)
rm -rf "$TMP/w" && cp -r "$TMP/t" "$TMP/w" && touch "$TMP/w/.handmade"
jq '.campaign.tune.tie = 1000' "$TMP/t/results.json" >"$TMP/w/results.json"
"$LOOPBENCH" report "$TMP/w" -f json >"$TMP/w.json" 2>/dev/null || true
check "report -f json judges the tune again: a tie of 1000 gives the reference (saving 0, not -0), 2 still the lowest" \
  jq -e '.hosts[0].tune | .recommended.setting == "0" and .best == "2" and .tie == 1000
    and ([.recommended.saving, .recommended.saving_lo, .recommended.saving_hi] | map(tostring))
      == ["0", "0", "0"]' "$TMP/w.json"
check "  ... and says the campaign recommended 2 when it ran (JSON and Markdown); the untouched one says nothing" \
  bash -c "jq -e '.hosts[0].tune.recommended_when_run == \"2\"' '$TMP/w.json' &&
    '$LOOPBENCH' report '$TMP/w' 2>/dev/null | grep -q 'When it ran, this campaign recommended period = 2' &&
    '$LOOPBENCH' report '$TMP/t' -f json 2>/dev/null |
      jq -e '.hosts[0].tune | has(\"recommended_when_run\") | not' &&
    ! '$LOOPBENCH' report '$TMP/t' 2>/dev/null | grep -q 'When it ran'"
rc=0
"$LOOPBENCH" tune "$P" --range 0:6 --guard 'lag<=+5' --tie -1 -o "$TMP/nt" >/dev/null 2>"$TMP/nt.err" ||
  rc=$?
check "--tie -1 is refused with 2, naming it, nothing run" bash -c "[ $rc -eq 2 ] &&
  grep -q -- \"--tie\" '$TMP/nt.err' && [ ! -e '$TMP/nt' ]"

# --- a profile's guards: used when the command line gives none ---------------------------
jq '. + {tune: {guards: ["lag<=+5"]}}' "$P" >"$TMP/knob/guarded.json"
rc=0
"$LOOPBENCH" tune "$TMP/knob/guarded.json" --range 0:6 --max-runs 2 -w 0 -t 0.4 -o "$TMP/g" -q >/dev/null 2>&1 || rc=$?
check "a profile's tune.guards are the guards when none is given (budget spent at once: 3)" bash -c "
  [ $rc -eq 3 ] && jq -e '.campaign.tune.guards == [\"lag<=+5\"] and .campaign.tune.stopped == \"budget spent\"
    and (.runs | length) == 2' '$TMP/g/results.json'"
jq '. + {tune: {guards: ["lag<=five"]}}' "$P" >"$TMP/knob/badguard.json"
rc=0
"$LOOPBENCH" tune "$TMP/knob/badguard.json" --range 0:6 -o "$TMP/bg" >/dev/null 2>"$TMP/bg.err" || rc=$?
check "  ... a bad one refused with 2, naming it, nothing run" bash -c "[ $rc -eq 2 ] &&
  grep -q \"profile 'knob': tune.guards\\[0\\]: guard 'lag<=five'\" '$TMP/bg.err' && [ ! -e '$TMP/bg' ]"

# --- a campaign.tune from elsewhere is checked, never trusted ---------------------------
for bad in '.campaign.tune.guards = ["nokey<=1"]' '.campaign.tune.range.step = 2' \
  '.campaign.tune.guards = [1]' '.campaign.tune = "x"' '.campaign.tune.max_rounds = 1e9' \
  '.campaign.tune.tie = -1' '.campaign.tune.tie = "wide"'; do
  rm -rf "$TMP/h" && cp -r "$TMP/t" "$TMP/h" && touch "$TMP/h/.handmade"
  jq "$bad" "$TMP/t/results.json" >"$TMP/h/results.json"
  rc=0
  "$LOOPBENCH" tune --resume "$TMP/h" >/dev/null 2>"$TMP/h.err" || rc=$?
  check "a tampered campaign.tune ($bad) is refused with 2, naming it" bash -c "[ $rc -eq 2 ] &&
    grep -q 'campaign.tune' '$TMP/h.err' && [ \$(wc -l <'$TMP/h.err') -le 2 ]"
done
# report of a tampered one says so in a line and still writes the rest
jq '.campaign.tune.guards = ["lag<=+x"]' "$TMP/t/results.json" >"$TMP/h/results.json"
rc=0
"$LOOPBENCH" report "$TMP/h" --no-plots -o "$TMP/h/report.md" >/dev/null 2>&1 || rc=$?
check "report of a tampered campaign.tune says it cannot be judged, the rest written" bash -c "
  [ $rc -eq 0 ] && grep -q 'cannot be judged again: .*campaign.tune.guards' '$TMP/h/report.md' &&
  grep -q '^| period ' '$TMP/h/report.md'"
check "no target left" no_process_from "$TMP/knob"

[ "$fails" -eq 0 ]
