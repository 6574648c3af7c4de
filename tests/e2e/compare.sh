#!/usr/bin/env bash
# loopbench compare end to end: the CI gate on real, short refshard campaigns.
source "$(dirname "$0")/lib.sh"

# Private copies of the reference profile (the test edits its own config), and a "hot"
# one where every wheel turn burns 2 ms of CPU: refshard then uses about a quarter of a
# core whatever its idle wait.
mkdir -p "$TMP/ref"
cp "$SOURCE_ROOT/profiles/refshard.json" "$SOURCE_ROOT/profiles/refshard.config.json" "$TMP/ref/"
cp "$REFSHARD" "$TMP/ref/refshard"
sed -i 's|{loopbench_dir}/refshard|./refshard|' "$TMP/ref/refshard.json"
jq '.fixed += [{"name": "refshard.workPerTickUs", "value": "2000", "config": {
      "file": "refshard.config.json", "path": ["settings", "refshard.workPerTickUs"],
      "type": "string"}}]' "$TMP/ref/refshard.json" >"$TMP/ref/hot.json"

campaign() { # campaign PROFILE OUT
  "$LOOPBENCH" run "$TMP/ref/$1" -s 2 -n 3 -w 1 -t 3 -o "$TMP/$2" -q >/dev/null
}
campaign refshard.json base
campaign hot.json hot

# --- 1. a campaign against itself: no regression -----------------------------------
rc=0
"$LOOPBENCH" compare "$TMP/base" "$TMP/base" >"$TMP/self.md" 2>"$TMP/self.err" || rc=$?
check "a campaign against itself exits 0" [ "$rc" -eq 0 ]
check "  ... with no regression reported" bash -c "! grep -q '\*\*regressed\*\*' '$TMP/self.md'"
# One campaign a side: a drift of 18% between campaigns could hide a 10% change, so
# identical runs are inconclusive, with p = 1 and the advice to pair base and head.
check "  ... CPU: inconclusive, with p = 1" grep -Eq \
  '^\| 2 \| CPU % \| [^|]* \| [^|]* \| \+0%[^|]* \| 1\.00 \|.*\*\*inconclusive\*\*' "$TMP/self.md"
check "  ... saying drift cannot be told from a change" grep -q "drift between campaigns cannot be told" "$TMP/self.md"
# refshard's profile names CPU its primary metric: the campaign records it, compare gates it.
check "  ... and which metrics are gated: the campaign's primary" grep -q 'Gated: `cpu`\. ' "$TMP/self.md"
check "  ... recorded in results.json" jq -e '.campaign.primary == ["cpu"]' "$TMP/base/results.json"
"$LOOPBENCH" compare "$TMP/base" "$TMP/base" --primary cpu,slots,missed16ms,tickLagPeak \
  >"$TMP/all.md" 2>&1 || true
check "  ... --primary overrides it" grep -q 'Gated: `cpu`, `slots`, `missed16ms`, `tickLagPeak`' "$TMP/all.md"
check "the table is well-formed (every row has the header's columns)" awk -F'|' '
  /^\| idle wait/ { n = NF } /^\|/ && n && NF != n { bad = 1 } END { exit bad || !n }' "$TMP/self.md"
"$LOOPBENCH" compare "$TMP/base" "$TMP/base" --metric cpu -f json >"$TMP/self.json"
"$LOOPBENCH" compare "$TMP/base" "$TMP/base" --metric cpu -f json --drift 0 >"$TMP/nodrift.json"
# Without the allowance the standard error is the runs' alone, but its t has the runs' few
# degrees of freedom (4 at 3 runs a side: t 2.78 against at least 1.96 with the allowance), so
# with noisy runs the interval need not be narrower; it is never wider than 2.78 / 1.96 times.
check "--drift 0: no allowance, the interval from the runs' spread alone" jq -e --slurp '
  def width: (1 + .rows[0].ci[1] | log) - (1 + .rows[0].ci[0] | log); # on logs: 2 t se
  (.[1] | width) <= 1.42 * (.[0] | width)
  and .[0].drift_allowance == 0.18 and .[1].drift_allowance == 0' "$TMP/self.json" "$TMP/nodrift.json"

# --- 2. the target burns more CPU: regression, exit 1 --------------------------------
rc=0
GITHUB_STEP_SUMMARY=$TMP/summary.md "$LOOPBENCH" compare "$TMP/base" "$TMP/hot" >"$TMP/hot.md" \
  2>"$TMP/hot.err" || rc=$?
cat "$TMP/hot.md"
check "more CPU is a regression: exit 1" [ "$rc" -eq 1 ]
check "  ... CPU row says regressed" grep -q '| 2 | CPU % |.*| \*\*regressed\*\*' "$TMP/hot.md"
check "  ... appended to \$GITHUB_STEP_SUMMARY" cmp -s "$TMP/hot.md" "$TMP/summary.md"
rc=0
"$LOOPBENCH" compare "$TMP/hot" "$TMP/base" --metric cpu -f json >"$TMP/better.json" || rc=$?
check "the other way round is an improvement: exit 0" [ "$rc" -eq 0 ]
check "  ... JSON verdict improved" jq -e '.verdict == "improved"
  and .rows[0].metric == "cpu" and .rows[0].p < 0.05 and .rows[0].ci[1] < 0
  and .gated == ["cpu"]' "$TMP/better.json"
# A history: BASE and a copy of it that drifted 5%; NEW the hot one: regressed, against
# the prediction from the two.
jq '.runs |= map(if .cpu_percent then .cpu_percent *= 1.05 else . end)' \
  "$TMP/base/results.json" >"$TMP/drifted.json"
rc=0
"$LOOPBENCH" compare "$TMP/base" "$TMP/drifted.json" "$TMP/hot" --metric cpu -f json \
  >"$TMP/hist.json" || rc=$?
check "a history of BASE campaigns: exit 1 on the hot one" [ "$rc" -eq 1 ]
check "  ... by prediction from the history" jq -e '.base_campaigns == 2
  and .rows[0].test == "prediction from the history, logs" and .rows[0].df == 1' "$TMP/hist.json"
# --primary: only the keys named gate; the others are reported and never fail.
rc=0
"$LOOPBENCH" compare "$TMP/base" "$TMP/hot" --primary tickLagPeak -f json >"$TMP/primary.json" || rc=$?
check "--primary tickLagPeak: CPU is reported, not gated" jq -e '.gated == ["tickLagPeak"]
  and ([.rows[] | select(.metric == "cpu")][0].gated == false)' "$TMP/primary.json"

# --- 3. guardrails and --fail-on -------------------------------------------------------
# The profile says missed16ms must stay 0; one window of NEW with a miss regresses.
jq '.profile.health |= map(if .key == "missed16ms" then .must_be_zero = true else . end)
  | .runs[0].metrics.missed16ms.max = 1' "$TMP/base/results.json" >"$TMP/guard.json"
rc=0
"$LOOPBENCH" compare "$TMP/base" "$TMP/guard.json" --metric missed16ms >"$TMP/guard.md" || rc=$?
check "a non-zero must_be_zero window is a regression: exit 1" [ "$rc" -eq 1 ]
check "  ... saying why" grep -q "must stay 0" "$TMP/guard.md"
# Two runs against three: Welch on logs still runs; drop to one run and nothing can be tested.
jq '.runs |= .[:1]' "$TMP/base/results.json" >"$TMP/one.json"
rc=0
"$LOOPBENCH" compare "$TMP/base" "$TMP/one.json" --metric cpu >"$TMP/one.md" || rc=$?
check "one run is inconclusive, not a failure: exit 0" [ "$rc" -eq 0 ]
check "  ... too few runs said" grep -q "too few runs" "$TMP/one.md"
rc=0
"$LOOPBENCH" compare "$TMP/base" "$TMP/one.json" --metric cpu --fail-on inconclusive \
  >/dev/null || rc=$?
check "--fail-on inconclusive makes it exit 3" [ "$rc" -eq 3 ]

# --- 4. incompatible or unreadable input: exit 2 ----------------------------------------
expect2() { # expect2 "what" "message" args...
  local what=$1 want=$2 rc=0; shift 2
  "$LOOPBENCH" compare "$@" >/dev/null 2>"$TMP/err" || rc=$?
  check "$what: exit 2" [ "$rc" -eq 2 ]
  check "  ... saying '$want'" grep -q -- "$want" "$TMP/err"
}
jq '.schema = "loopbench/results/3"' "$TMP/base/results.json" >"$TMP/schema2.json"
jq '.profile.name = "other"' "$TMP/base/results.json" >"$TMP/other.json"
expect2 "another schema version" "schema 'loopbench/results/3'" "$TMP/base" "$TMP/schema2.json"
expect2 "another profile" "expected the same profile" "$TMP/base" "$TMP/other.json"
expect2 "a missing directory" "cannot read" "$TMP/base" "$TMP/nothing"
expect2 "an unknown metric" "--metric 'nope'" "$TMP/base" "$TMP/hot" --metric nope
expect2 "one directory, a campaign without variants" "a campaign of settings, not of variants" "$TMP/base"
expect2 "an unknown primary key" "--primary 'nope'" "$TMP/base" "$TMP/hot" --primary cpu,nope
check "no refshard left" no_process_from "$TMP/ref"
