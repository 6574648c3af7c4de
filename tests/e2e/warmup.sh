#!/usr/bin/env bash
# Warm-up by detection (run --warmup auto) and the steadiness check of every window, on
# real processes: a target that burns half a core for 6 s and 1% after gets its window
# after the burn; refshard settles within 3 s; a target that climbs through its window is
# flagged not steady (results.json, the warnings under the table, the report), and a
# steady one is not.
source "$(dirname "$0")/lib.sh"

cp "$BURNER" "$TMP/burner"
# It logs a health line every 0.25 s saying what it burns: 50 for the first 6 s, then 1.
# The quarter second is waited out by bash's own read on a FIFO nobody writes, not by a
# `sleep` a line: four processes started a second cost a microVM about a point of a core,
# unevenly enough that a window of the 1% once read as a change (CI, 2026-12-06: the
# window opened at 14.3 s, two windows given up).
cat >"$TMP/hot-then-idle" <<'SH'
#!/usr/bin/env bash
never=$(dirname "$0")/never
[ -p "$never" ] || mkfifo "$never"
exec 3<>"$never"
(n=0; while [ $n -lt 24 ]; do echo "loop: share=50"; read -r -t 0.25 -u 3; n=$((n + 1)); done
 while :; do echo "loop: share=1"; read -r -t 0.25 -u 3; done) &
"$(dirname "$0")/burner" --share 0.5 --seconds 6 >/dev/null
exec "$(dirname "$0")/burner" --share 0.01 --forever
SH
# One process whose CPU climbs from 2% to 25% of a core over 4.4 s, then stays: a climb a
# host that other processes keep busy still gives it (to 60% it flattened where two spinning
# processes and other tests left it a third of a core, and read as steady).
printf '#!/bin/sh\nexec "$(dirname "$0")/burner" --share 0.02 --ramp 0.25 4.4 --forever\n' >"$TMP/climb"
printf '#!/bin/sh\nexec "$(dirname "$0")/burner" --share 0.3 --forever\n' >"$TMP/flat"
chmod +x "$TMP/hot-then-idle" "$TMP/climb" "$TMP/flat"
profile() { # profile NAME COMMAND: a one-setting profile that starts COMMAND
  local name=$1 command=$2
  jq -n --arg name "$name" --arg command "$command" '{name: $name, command: [$command, "{value}"],
    knob: {name: "x", values: ["1"], argv: {}}, ready: {delay: 0}, stop: {grace: 2}}' >"$TMP/$name.json"
}
profile hot "$TMP/hot-then-idle"
jq '.metrics = {health: [{key: "share"}]}' "$TMP/hot.json" >"$TMP/hot.tmp" && mv "$TMP/hot.tmp" "$TMP/hot.json"
profile climb "$TMP/climb"
profile flat "$TMP/flat"

# Each section below judges how the host ran its targets (when a window held steady): one
# that fails while other processes kept the CPUs busy runs once more (lib.sh).

# --- half a core for 6 s, then 1%: the window opens after the burn, before 6 + 5 s -------
# The first window opens once the burn has held steady (about 2 s in) and sees it end 4 s
# later; 8 s windows leave it 4 s of points after the drop to call it a change. With 5 s
# the drop came a second before the window's end, and on a host with a load of 8 (the burn
# read 30% of a core, noisily) it was called only at the end: the window kept, unsteady.
hot_then_idle() {
rm -rf "$TMP/hot"
rc=0
"$LOOPBENCH" run "$TMP/hot.json" -n 1 --warmup auto=20 -t 8 --interval 250 -o "$TMP/hot" \
  >"$TMP/hot.txt" 2>&1 || rc=$?
cat "$TMP/hot.txt"
res=$TMP/hot/results.json
jq -c '.runs[] | {warmup_seconds, window_restarts, cpu_percent, steady, unsteady}' "$res" || true
check "--warmup auto: the campaign exits 0, recorded as auto at most 20 s" bash -c "[ $rc -eq 0 ] &&
  jq -e '.campaign.warmup_auto == true and .campaign.warmup_seconds == 20' '$res'"
check "  ... the window opened after the burn and before 11 s" jq -e '
  .runs[0] | .warmup_seconds > 6 and .warmup_seconds < 11' "$res"
# 1%, far from the burn's 50%.
check "  ... so it measured the 1% and not the burn" jq -e '.runs[0].cpu_percent < 5' "$res"
check "  ... one window given up, the warm-up not capped" jq -e '
  .runs[0].window_restarts >= 1 and .runs[0].warmup_capped == false' "$res"
check "  ... and only the last window's health lines count (every one says 1)" jq -e '
  .runs[0].metrics.share.max == 1 and .runs[0].windows >= 15' "$res"
check "  ... a steady window" jq -e '.runs[0].steady == true and .runs[0].unsteady == null' "$res"
}
rerun_when_busy "the hot-then-idle target" hot_then_idle

# --- refshard settles within a window or two, spinning and sleeping ----------------------
# Its start (exec, the first ticks) can fall in the first 3 s window and read as a drop on a
# loaded machine (seen once in CI at idle wait 2: 6.25 s, one window given up), which is the
# detector doing its job; what must hold is that it settles by the second window.
refshard_settles() {
rm -rf "$TMP/refshard"
rc=0
"$LOOPBENCH" run -s 0,2 -n 1 --warmup auto -t 3 --interval 250 -o "$TMP/refshard" -q \
  >"$TMP/refshard.txt" 2>&1 || rc=$?
jq -c '.runs[] | {setting, warmup_seconds, window_restarts, steady}' "$TMP/refshard/results.json" || true
check "refshard, --warmup auto: settled within two windows at idle wait 0 and 2" bash -c "[ $rc -eq 0 ] &&
  jq -e '[.runs[] | .warmup_seconds < 7 and .window_restarts <= 1 and .steady == true
    and .warmup_capped == false] | length == 2 and all' \
    '$TMP/refshard/results.json'"
}
rerun_when_busy "refshard's warm-up" refshard_settles

# --- a target that climbs through its window is flagged --------------------------------
climbing() {
rm -rf "$TMP/climbing"
rc=0
"$LOOPBENCH" run "$TMP/climb.json" -n 1 -w 0.2 -t 4 --interval 250 -o "$TMP/climbing" \
  >"$TMP/climb.txt" 2>&1 || rc=$?
cat "$TMP/climb.txt"
res=$TMP/climbing/results.json
check "a climbing target: the run completes" [ "$rc" -eq 0 ]
check "  ... its window flagged not steady, saying it climbs" jq -e '
  .runs[0].steady == false and (.runs[0].unsteady | startswith("climbs from"))' "$res"
check "  ... warned under the table" grep -q "the window was not steady (CPU climbs from" "$TMP/climb.txt"
"$LOOPBENCH" report "$TMP/climbing" --no-plots -o "$TMP/climb.md" >/dev/null 2>&1
check "  ... and in the report" grep -q "the window was not steady (CPU climbs from" "$TMP/climb.md"
check "  ... it reads back and writes again as it was" "$ROUNDTRIP" "$res"
}
rerun_when_busy "the climbing target" climbing

# --- an auto warm-up that reaches its most measures regardless, and says so -------------
capped() {
rm -rf "$TMP/capped"
rc=0
"$LOOPBENCH" run "$TMP/climb.json" -n 1 --warmup auto=1 -t 3 --interval 250 -o "$TMP/capped" \
  >"$TMP/capped.txt" 2>&1 || rc=$?
jq -c '.runs[0] | {warmup_seconds, warmup_capped, window_restarts, steady}' "$TMP/capped/results.json" || true
check "a climbing target, --warmup auto=1: measured after 1 s, the warm-up capped, the window flagged" \
  bash -c "[ $rc -eq 0 ] && jq -e '.runs[0] | .warmup_capped == true and .warmup_seconds < 1.5
    and .steady == false' '$TMP/capped/results.json'"
check "  ... warned under the table" grep -q "the auto warm-up reached its most (1 s) before the target settled" "$TMP/capped.txt"
}
rerun_when_busy "the capped warm-up" capped

# --- a steady target is not flagged -----------------------------------------------------
steady() {
rm -rf "$TMP/flat-out"
"$LOOPBENCH" run "$TMP/flat.json" -n 2 -w 0.5 -t 3 --interval 250 -o "$TMP/flat-out" -q \
  >"$TMP/flat.txt" 2>&1 || true
check "a steady target (30% of a core): both windows steady" jq -e '
  [.runs[] | .steady == true] | length == 2 and all' "$TMP/flat-out/results.json"
check "  ... and the fixed warm-up recorded" jq -e '
  [.runs[] | .warmup_seconds >= 0.5 and .window_restarts == 0] | all' "$TMP/flat-out/results.json"
}
rerun_when_busy "the steady target" steady

# --- a window given up takes its round trips with it -----------------------------------
# refshard with its round-trip probe (200 requests a second), a burner at half a core beside
# it for its first 5 s: the window first opened is given up at the drop, and the run's round
# trips are those of the last window alone.
if "$LOOPBENCH" validate "$SOURCE_ROOT/profiles/refshard-rtt.json" >/dev/null 2>&1; then
  port=$(free_port)
  mkdir -p "$TMP/rtt"
  cp "$SOURCE_ROOT/profiles/refshard-rtt.json" "$SOURCE_ROOT/profiles/refshard-rtt.config.json" "$TMP/rtt/"
  cp "$REFSHARD" "$TMP/rtt/refshard"
  sed -i "s|127.0.0.1:25930|127.0.0.1:$port|" "$TMP/rtt/refshard-rtt.config.json"
  jq --arg a "127.0.0.1:$port" --arg burner "$TMP/burner" '.rtt.tcp = $a | .ready.tcp = $a
    | .command = ["sh", "-c", "\"$0\" --share 0.5 --seconds 5 >/dev/null & exec ./refshard --config refshard-rtt.config.json", $burner]' \
    "$TMP/rtt/refshard-rtt.json" >"$TMP/rtt/burst.json"
  burst() {
  rm -rf "$TMP/rtt-auto"
  rc=0
  "$LOOPBENCH" run "$TMP/rtt/burst.json" -s 2 -n 1 --warmup auto -t 4 --interval 250 \
    -o "$TMP/rtt-auto" -q >"$TMP/rtt.txt" 2>&1 || rc=$?
  res=$TMP/rtt-auto/results.json
  jq -c '.runs[0] | {warmup_seconds, window_restarts, wall_seconds, scheduled: .rtt.requests.scheduled}' "$res" || true
  check "refshard with a 5 s burst beside it: the first window given up" bash -c "[ $rc -eq 0 ] &&
    jq -e '.runs[0].window_restarts >= 1 and .runs[0].warmup_seconds > 5' '$res'"
  check "  ... and only the last window's round trips count (200 a second over it)" jq -e '
    .runs[0] | .rtt.requests.scheduled <= 200 * .wall_seconds + 10
      and .rtt.requests.completed >= 150 * .wall_seconds' "$res"
  }
  rerun_when_busy "refshard beside a burst" burst
else
  ok "skipped: this build has no round-trip probe (no network features)"
fi

# --- bad values --------------------------------------------------------------------------
for bad in auto=0 auto=x autox -1; do
  rc=0
  "$LOOPBENCH" run "$TMP/flat.json" --warmup "$bad" -o "$TMP/bad" >"$TMP/bad.txt" 2>&1 || rc=$?
  check "--warmup $bad is refused with 2, naming it" \
    bash -c "[ $rc -eq 2 ] && grep -q -- \"--warmup '$bad'\" '$TMP/bad.txt'"
done
check "no target left" no_process_from "$TMP"
