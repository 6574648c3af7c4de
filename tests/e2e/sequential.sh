#!/usr/bin/env bash
# Runs until decided (run --repeat auto, src/analysis/sequential.c) on real processes: a burner at
# 5% and at 50% of a core differ 10x, which the look after the third round decides, so
# the campaign stops there; what it looked at and why it stopped are in results.json and
# the report; bad caps and an order without rounds are refused.
source "$(dirname "$0")/lib.sh"

cp "$BURNER" "$TMP/burner"
cat >"$TMP/shares.json" <<JSON
{ "name": "shares", "command": ["$TMP/burner", "--share", "{value}", "--forever"],
  "knob": { "name": "share", "values": ["0.05", "0.5"], "argv": {} },
  "ready": { "delay": 0 }, "stop": { "grace": 2 } }
JSON

rc=0
"$LOOPBENCH" run "$TMP/shares.json" --repeat auto=6 --primary cpu -w 0.3 -t 1 -o "$TMP/auto" \
  >"$TMP/auto.txt" 2>&1 || rc=$?
cat "$TMP/auto.txt"
res=$TMP/auto/results.json
check "the campaign exits 0" [ "$rc" -eq 0 ]
check "it stops after 3 rounds, decided" jq -e '.campaign.repeat == 3
  and .campaign.sequential.max == 6 and .campaign.sequential.stopped == "decided"
  and (.campaign.plan | length) == 6 and (.runs | length) == 6' "$res"
check "the keys it was run to decide are recorded" jq -e '.campaign.primary == ["cpu"]' "$res"
check "the look after round 3 is recorded, nothing left undecided" \
  jq -e '.campaign.sequential.looks == [{"round": 3, "undecided": 0}]' "$res"
check "the run says why it stopped" grep -q "round 3: every gated comparison is decided" "$TMP/auto.txt"
"$LOOPBENCH" report "$TMP/auto" --no-plots -o "$TMP/auto.md" >/dev/null 2>&1
check "the report says it was decided after 3 rounds" \
  grep -q "every gated comparison decided after 3 rounds" "$TMP/auto.md"

for bad in auto=2 auto=x autox; do
  rc=0
  "$LOOPBENCH" run "$TMP/shares.json" --repeat "$bad" -o "$TMP/bad" >"$TMP/bad.txt" 2>&1 || rc=$?
  check "--repeat $bad is refused with 2, naming it" \
    bash -c "[ $rc -eq 2 ] && grep -q -- \"--repeat '$bad'\" '$TMP/bad.txt'"
done
rc=0
"$LOOPBENCH" run "$TMP/shares.json" --repeat auto --primary cpu,lag -o "$TMP/nokey" \
  >"$TMP/nokey.txt" 2>&1 || rc=$?
check "--primary with a key the profile lacks is refused with 2, naming it" \
  bash -c "[ $rc -eq 2 ] && grep -q \"primary 'lag'\" '$TMP/nokey.txt'"
rc=0
"$LOOPBENCH" run "$TMP/shares.json" --repeat auto --order grouped -o "$TMP/grouped" \
  >"$TMP/grouped.txt" 2>&1 || rc=$?
check "--repeat auto with --order grouped is refused" \
  bash -c "[ $rc -ne 0 ] && grep -q 'order grouped' '$TMP/grouped.txt'"
check "no burner left" no_process_from "$TMP"

# --- compare replays the looks: head burns 10x base's CPU -----------------------------
for v in base head; do
  mkdir -p "$TMP/$v"
  share=0.05; [ "$v" = head ] && share=0.5
  printf '#!/bin/sh\nexec "%s" --share %s --forever\n' "$TMP/burner" "$share" >"$TMP/$v/target"
  chmod +x "$TMP/$v/target"
done
cat >"$TMP/builds.json" <<JSON
{ "name": "builds", "command": ["{variant_dir}/target", "{value}"],
  "knob": { "name": "x", "values": ["1"], "argv": {} },
  "ready": { "delay": 0 }, "stop": { "grace": 2 } }
JSON
rc=0
"$LOOPBENCH" run "$TMP/builds.json" --variant base="$TMP/base" --variant head="$TMP/head" \
  --repeat auto=6 -w 0.3 -t 1 -o "$TMP/builds" -q >/dev/null 2>&1 || rc=$?
check "two builds, head 10x base: the campaign stops after 3 rounds" \
  jq -e '.campaign.repeat == 3 and .campaign.sequential.stopped == "decided"' "$TMP/builds/results.json"
rc=0
"$LOOPBENCH" compare "$TMP/builds" -f json >"$TMP/builds-compare.json" 2>/dev/null || rc=$?
check "compare DIR replays its looks: regressed (exit 1), decided at round 3" bash -c "[ $rc -eq 1 ] &&
  jq -e '.sequential_max == 6 and .verdict == \"regressed\"
    and ([.rows[] | select(.metric == \"cpu\")][0] | .verdict == \"regressed\" and .decided_at_round == 3)' \
    '$TMP/builds-compare.json'"
"$LOOPBENCH" compare "$TMP/builds" >"$TMP/builds-compare.md" 2>/dev/null || true
check "  ... every gated tested row states its power, the others none" jq -e '
  ([.rows[] | select(.gated and .kind == "comparison" and (.verdict | IN("regressed", "improved", "no change", "inconclusive")))]
   | length > 0 and all(.detectable > 0))
  and ([.rows[] | select(.gated | not)] | all(.detectable == null))' \
  "$TMP/builds-compare.json"
check "  ... and in Markdown, its line of why" grep -Eq \
  '^\| 1 head \| CPU .*could have missed changes under \+[0-9.]+% \(80% power\) \|$' "$TMP/builds-compare.md"
check "  ... and says so in Markdown" bash -c "grep -q 'ran until decided' '$TMP/builds-compare.md' &&
  grep -q 'decided at the look after round 3' '$TMP/builds-compare.md'"

# --- --resume continues a sequential campaign as if it had never stopped --------------
# A health key that moves by exactly 1 in every round has no spread: only the sign test
# can judge it, whose p halves each round, so the campaign is decided at a round fixed by
# the boundaries alone, the same however often it was interrupted.
cat >"$TMP/lags.sh" <<'SH'
#!/bin/sh
while :; do echo "loop: lag=$1"; sleep 0.1; done
SH
chmod +x "$TMP/lags.sh"
cat >"$TMP/lags.json" <<JSON
{ "name": "lags", "command": ["$TMP/lags.sh", "{value}"],
  "knob": { "name": "lag", "values": ["1", "2"], "argv": {} },
  "ready": { "delay": 0 }, "stop": { "grace": 2 },
  "metrics": { "health": [{ "key": "lag" }], "primary": ["lag"] } }
JSON
lags=("$LOOPBENCH" run "$TMP/lags.json" --repeat auto=8 -w 0.1 -t 0.5)
"${lags[@]}" -o "$TMP/whole" >"$TMP/whole.txt" 2>&1 || true
"${lags[@]}" -o "$TMP/cut" >"$TMP/cut.txt" 2>&1 &
cut_pid=$!
for _ in $(seq 600); do grep -q "round 3:" "$TMP/cut.txt" && break; sleep 0.05; done
kill -TERM "$cut_pid" # (a background job of a script ignores SIGINT)
rc=0
wait "$cut_pid" || rc=$?
check "a sequential campaign interrupted after the look of round 3 exits 143" [ "$rc" -eq 143 ]
rc=0
"$LOOPBENCH" run --resume "$TMP/cut" >"$TMP/resumed.txt" 2>&1 || rc=$?
cat "$TMP/resumed.txt"
check "  ... --resume finishes it" [ "$rc" -eq 0 ]
check "  ... decided after more than 3 rounds, the looks as the uninterrupted campaign's" bash -c "
  jq -e '.campaign.repeat > 3 and .campaign.sequential.stopped == \"decided\"' '$TMP/whole/results.json' &&
  [ \"\$(jq -c '[.campaign.repeat, .campaign.sequential]' '$TMP/whole/results.json')\" = \
    \"\$(jq -c '[.campaign.repeat, .campaign.sequential]' '$TMP/cut/results.json')\" ]"
check "  ... and it was resumed once" jq -e '(.campaign.resumed_at | length) == 1
  and ([.runs[].status] | unique) == ["ok"]' "$TMP/cut/results.json"
check "no target left after the campaigns" no_process_from "$TMP"
