#!/usr/bin/env bash
# Runs until decided (run --repeat auto, src/sequential.c) on real processes: a burner at
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
