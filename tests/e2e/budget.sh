#!/usr/bin/env bash
# Budgets end to end (compare --budget, a profile's budgets): refshard at idle wait 2,
# about 1% of a core, held to bounds with no base build. Within 5% of a core, over
# 0.01%, inconclusive at its own typical value (the geometric mean of its runs' CPU, read
# from results.json) with 3 runs; a profile's budgets gate a plain `compare DIR`, and
# `run --repeat auto` stops once they are decided. The bounds are 5x above and 100x below
# what the target uses, which other processes on the host cannot cross; the typical value
# is its own.
source "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/ref"
cp "$SOURCE_ROOT/profiles/refshard.json" "$SOURCE_ROOT/profiles/refshard.config.json" "$TMP/ref/"
cp "$REFSHARD" "$TMP/ref/refshard"
sed -i 's|{loopbench_dir}/refshard|./refshard|' "$TMP/ref/refshard.json"
jq '.budgets = [{"setting": "2", "key": "cpu", "max": 5}]' "$TMP/ref/refshard.json" \
  >"$TMP/ref/budgeted.json"

"$LOOPBENCH" run "$TMP/ref/refshard.json" -s 2 -n 3 -w 0.5 -t 1.5 -o "$TMP/plain" -q >/dev/null
res=$TMP/plain/results.json

# compare DIR BUDGET...: the exit status, and the verdict of the budget's row
budget() { # budget OUT ARGS...
  local out=$1
  shift
  local rc=0
  "$LOOPBENCH" compare "$TMP/plain" "$@" >"$TMP/$out.md" 2>"$TMP/$out.err" || rc=$?
  echo "$rc" >"$TMP/$out.rc"
}
row_is() { grep -Eq "^\| 2 \| CPU % \| budget <= [^|]* \|.*\*\*$2\*\*" "$TMP/$1.md"; }

rc=0
"$LOOPBENCH" compare "$TMP/plain" >"$TMP/none.md" 2>"$TMP/none.err" || rc=$?
check "a campaign of settings with no budget is refused (2), naming --budget" \
  bash -c "[ $rc -eq 2 ] && grep -q -- '--budget' '$TMP/none.err'"

GITHUB_STEP_SUMMARY=$TMP/summary.md budget within --budget 'cpu@2<=5'
check "within a budget of 5% of a core: exit 0" [ "$(cat "$TMP/within.rc")" -eq 0 ]
check "  ... the row says within" row_is within within
check "  ... the gate's verdict is within" grep -q '^### loopbench compare: within' "$TMP/within.md"
check "  ... and the same Markdown went to \$GITHUB_STEP_SUMMARY" cmp -s "$TMP/within.md" "$TMP/summary.md"
check "the table is well-formed (every row has the header's columns)" awk -F'|' '
  /^\| idle wait/ { n = NF } /^\|/ && n && NF != n { bad = 1 } END { exit bad || !n }' "$TMP/within.md"

budget over --budget 'cpu@2<=0.01'
check "over a budget of 0.01% of a core: exit 1" [ "$(cat "$TMP/over.rc")" -eq 1 ]
check "  ... the row says over" row_is over over

# the typical value as the budget takes it: the geometric mean of the runs' CPU
typical=$(jq '[.runs[] | select(.status == "ok") | .cpu_percent | log] | add / length | exp' "$res")
echo "typical CPU at idle wait 2: $typical% over $(jq '.runs | length' "$res") runs"
budget own --budget "cpu@2<=$typical" --fail-on inconclusive
check "at its own typical value with 3 runs: inconclusive, exit 3 with --fail-on inconclusive" \
  [ "$(cat "$TMP/own.rc")" -eq 3 ]
check "  ... the row says inconclusive" row_is own inconclusive
budget own0 --budget "cpu@2<=$typical"
check "  ... and exit 0 without it" [ "$(cat "$TMP/own0.rc")" -eq 0 ]

"$LOOPBENCH" compare "$TMP/plain" --budget 'cpu@2<=5' --budget 'cpu@2<=0.01' -f json >"$TMP/two.json" || true
# slurped, so that no output at all is a failure (jq -e passes an empty file)
check "JSON: budget rows in compare's shape, with their bound and typical value" jq -se --argjson t "$typical" '
  .[0] | .verdict == "over" and (.rows | length) == 2 and all(.rows[]; .kind == "budget"
    and .bound == "max" and .gated and .new_runs == 3 and .test != null
    and ((.typical - $t) | fabs) < 0.001 * $t)
  and ([.rows[].verdict] == ["within", "over"]) and .rows[1].p_adjusted < 0.05' "$TMP/two.json"

budget nosetting --budget 'cpu@8<=5'
check "a budget at a setting the campaign did not run is refused (2), naming it" \
  bash -c "[ $(cat "$TMP/nosetting.rc") -eq 2 ] && grep -q \"'8' is not a setting\" '$TMP/nosetting.err'"

# --- the profile's budgets: run until decided, then a plain compare DIR ---------------
rc=0
"$LOOPBENCH" run "$TMP/ref/budgeted.json" -s 2 -n auto=6 -w 0.5 -t 1.5 -o "$TMP/auto" \
  >"$TMP/auto.txt" 2>&1 || rc=$?
check "a single setting runs until its budget is decided (exit 0)" [ "$rc" -eq 0 ]
check "  ... it stops after 3 rounds, decided" jq -e '.campaign.repeat == 3
  and .campaign.sequential.stopped == "decided" and (.runs | length) == 3' "$TMP/auto/results.json"
check "  ... saying why" grep -q "round 3: every gated comparison is decided" "$TMP/auto.txt"
check "  ... results.json keeps the profile's budgets" \
  jq -e '.profile.budgets == [{"setting": "2", "key": "cpu", "max": 5}]' "$TMP/auto/results.json"
rc=0
"$LOOPBENCH" compare "$TMP/auto" >"$TMP/auto.md" 2>&1 || rc=$?
check "plain compare DIR gates it by the profile's budget: within, exit 0" \
  bash -c "[ $rc -eq 0 ] && grep -Eq '^\| 2 \| CPU % \| budget <= 5.00 \|.*\*\*within\*\* \| decided at the look after round 3' '$TMP/auto.md'"
check "no refshard left" no_process_from "$TMP"
