#!/usr/bin/env bash
# A target that saves its own config once it is ready (truncate, then write: json.dump
# into open(path, "w"), as ModernUO does at start-up), and a loopbench SIGKILLed at each
# point of that save, then at 20 random moments of campaigns of a target that saves
# again and again: each time `loopbench restore` puts the original back byte for byte,
# its mode kept, and keeps beside it a save the kill cut short. See docs/reliability.md
# ("What counts as ours").
source "$(dirname "$0")/lib.sh"

PYTHON=$(command -v python3) || skip_test "python3 is needed (the target)"
mkdir -p "$TMP/t"
cp "$SOURCE_ROOT/tests/helpers/rewriter.py" "$TMP/t/"
cfg=$TMP/t/cfg.json
journal=$TMP/t/.cfg.json.loopbench-journal
printf '{\n  "name": "operator'"'"'s server",\n  "settings": { "idleWaitMs": "2", "ratio": 0.1, "ports": [2593, 2594] }\n}\n' >"$cfg"
chmod 640 "$cfg"
cp "$cfg" "$TMP/original.json"

# profile NAME [GATES]: the rewriter, its knob and a fixed setting in the config.
profile() {
  local gates=${2:+, \"$2\"}
  cat >"$TMP/t/$1.json" <<JSON
{ "name": "$1", "command": ["$PYTHON", "rewriter.py", "cfg.json"$gates],
  "knob": { "name": "idleWaitMs", "values": ["0", "2"],
            "config": { "file": "cfg.json", "path": ["settings", "idleWaitMs"], "type": "string" } },
  "fixed": [ { "name": "statsEvery", "value": "5",
               "config": { "file": "cfg.json", "path": ["settings", "statsEvery"], "type": "number" } } ],
  "ready": { "log": "^ready: ", "timeout": 30 }, "stop": { "grace": 1 } }
JSON
}

config_intact() { cmp -s "$cfg" "$TMP/original.json" && [ "$(stat -c %a "$cfg")" = 640 ]; }
no_target() { no_process_from "$TMP/t"; }
# wait_for FILE [PATTERN]: until FILE exists (and has a line matching PATTERN), 30 s at most.
wait_for() {
  for _ in $(seq 1 600); do
    if [ -z "${2:-}" ]; then [ -e "$1" ] && return 0; else grep -q "$2" "$1" 2>/dev/null && return 0; fi
    sleep 0.05
  done
  return 1
}
# reset: what a refused restore left put right by hand, and kept files removed, so that
# each case starts clean.
reset() {
  rm -f "$TMP"/t/cfg.json.loopbench-kept-*
  if [ -e "$journal" ] || ! config_intact; then
    rm -f "$journal"
    cp "$TMP/original.json" "$cfg"
    chmod 640 "$cfg"
  fi
}
# sigkill PID: SIGKILL loopbench; its target dies with it (PR_SET_PDEATHSIG).
sigkill() {
  kill -9 "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  for _ in $(seq 1 200); do no_target && break; sleep 0.05; done
}

# --- 1. SIGKILL at each point of the target's save -------------------------------------
# Each time: loopbench has seen the target ready and opened its window; the test lets the
# save go to POINT, SIGKILLs loopbench there, and restores.
profile gated "$TMP/gates"
for point in before-truncate truncated half written; do
  rm -rf "$TMP/gates"
  mkdir "$TMP/gates"
  "$LOOPBENCH" run "$TMP/t/gated.json" -s 0 -n 1 -w 0 -t 120 -o "$TMP/$point" \
    >/dev/null 2>"$TMP/$point.err" &
  lb=$!
  PIDS+=("$lb")
  wait_for "$TMP/$point.err" ": sample" || fail "$point: the window opened"
  case $point in
    truncated) gates="go-truncate" ;;
    half) gates="go-truncate go-half" ;;
    written) gates="go-truncate go-half go-rest" ;;
    *) gates="" ;;
  esac
  for g in $gates; do
    touch "$TMP/gates/$g"
    case $g in go-truncate) mark=truncated ;; go-half) mark=half ;; *) mark=written ;; esac
    wait_for "$TMP/gates/$mark" || fail "$point: the target reached '$mark'"
  done
  sigkill "$lb"
  check "$point: SIGKILL of loopbench takes its target with it" no_target
  check "  ... leaves the config edited, and a journal" \
    bash -c "! cmp -s '$cfg' '$TMP/original.json' && test -f '$journal'"
  cp "$cfg" "$TMP/$point.left"
  rc=0
  "$LOOPBENCH" restore "$cfg" >"$TMP/$point.out" 2>&1 || rc=$?
  check "  ... restore exits 0" [ "$rc" -eq 0 ]
  check "  ... the config byte-identical to the original, mode 640 kept" config_intact
  check "  ... the journal removed" test ! -e "$journal"
  kept=$(ls "$TMP/t" | grep '^cfg\.json\.loopbench-kept-' || true)
  if [ "$point" = half ]; then
    # A save cut short is not JSON: kept beside, exactly as it was, for the operator.
    check "  ... what the cut save left is kept beside it, byte for byte" \
      bash -c "[ -n '$kept' ] && cmp -s '$TMP/t/$kept' '$TMP/$point.left'"
    check "  ... and restore names both files" \
      bash -c "grep -qF \"'$cfg'\" '$TMP/$point.out' && grep -qF '$kept' '$TMP/$point.out'"
  else
    check "  ... nothing kept beside it" [ -z "$kept" ]
  fi
  [ -z "$kept" ] || rm -f "$TMP/t/$kept"
  cat "$TMP/$point.out"
  reset
done

# A save cut short is no JSON, which the next run's check of its profile refuses (exit 2)
# before it could recover anything: it names the file and touches nothing, and restore
# then puts it right.
rm -rf "$TMP/gates"
mkdir "$TMP/gates"
"$LOOPBENCH" run "$TMP/t/gated.json" -s 0 -n 1 -w 0 -t 120 -o "$TMP/cut" >/dev/null 2>"$TMP/cut.err" &
lb=$!
PIDS+=("$lb")
wait_for "$TMP/cut.err" ": sample" || fail "the window opened"
touch "$TMP/gates/go-truncate" "$TMP/gates/go-half"
wait_for "$TMP/gates/half" || fail "the target wrote half its save"
sigkill "$lb"
cp "$cfg" "$TMP/cut.left"
rc=0
"$LOOPBENCH" run "$TMP/t/gated.json" -s 2 -n 1 -w 0 -t 0.5 -o "$TMP/next" -q >/dev/null \
  2>"$TMP/next.err" || rc=$?
check "the next run after a SIGKILL mid-save refuses the cut config (exit 2), naming it" \
  bash -c "[ $rc -eq 2 ] && grep -qF \"'$cfg'\" '$TMP/next.err'"
check "  ... and touches nothing" bash -c "cmp -s '$cfg' '$TMP/cut.left' && test -f '$journal'"
rc=0
"$LOOPBENCH" restore "$cfg" >/dev/null 2>&1 || rc=$?
check "  ... restore then exits 0" [ "$rc" -eq 0 ]
check "  ... and puts the original back, byte for byte, mode kept" config_intact
reset

# --- 2. 20 SIGKILLs at random moments of a campaign ------------------------------------
# The target saves again and again, each save paused half-way; the moments are drawn
# over the length of a whole campaign, measured first (so under valgrind too).
profile looping
start=$(date +%s.%N)
rc=0
"$LOOPBENCH" run "$TMP/t/looping.json" -s 0,2 -n 1 -w 0.3 -t 0.3 -o "$TMP/whole" -q \
  >/dev/null 2>"$TMP/whole.err" || rc=$?
length=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
check "a whole campaign of the target that saves again and again exits 0 (${length} s)" [ "$rc" -eq 0 ]
check "  ... and leaves the config byte-identical, mode kept" config_intact
seed=${RESTORE_SEED:-$RANDOM}
echo "20 SIGKILLs at moments drawn from 0 to $length s (RESTORE_SEED=$seed)"
intact=0 torn=0
for i in $(seq 1 20); do
  at=$(awk -v s="$seed" -v i="$i" -v d="$length" 'BEGIN { srand(s * 100 + i); printf "%.3f", rand() * d }')
  "$LOOPBENCH" run "$TMP/t/looping.json" -s 0,2 -n 1 -w 0.3 -t 0.3 -o "$TMP/kill$i" -q \
    >/dev/null 2>&1 &
  lb=$!
  PIDS+=("$lb")
  sleep "$at"
  sigkill "$lb"
  rc=0
  "$LOOPBENCH" restore "$cfg" >"$TMP/kill$i.out" 2>&1 || rc=$?
  kept=$(ls "$TMP/t" | grep '^cfg\.json\.loopbench-kept-' || true)
  if [ "$rc" -eq 0 ] && config_intact && [ ! -e "$journal" ]; then
    intact=$((intact + 1))
  else
    echo "kill $i at $at s: restore exited $rc: $(cat "$TMP/kill$i.out")"
  fi
  [ -z "$kept" ] || { torn=$((torn + 1)); rm -f "$TMP/t/$kept"; }
  reset
  rm -rf "$TMP/kill$i"
done
echo "restored byte for byte, mode kept: $intact of 20 ($torn with a save cut short kept beside)"
check "20 SIGKILLs at random moments: the original back byte for byte, mode kept, 20 of 20" \
  [ "$intact" -eq 20 ]

check "no target left" no_target
[ "$fails" -eq 0 ]
