#!/usr/bin/env bash
# run --hold-idle on real processes: the PM QoS request (/dev/cpu_dma_latency at 0) is
# held through each run's warm-up and window, let go between runs and on every way a
# campaign ends (normal end, a failed run, SIGINT/SIGTERM/SIGHUP, a crash of the target,
# loopbench itself killed), not inherited by the target, and refused without root. The
# request is read back from /dev/cpu_dma_latency, which gives the aggregate in force.
source "$(dirname "$0")/lib.sh"

QOS=/dev/cpu_dma_latency
if [ "$(id -u)" -ne 0 ] || [ ! -c "$QOS" ]; then
  skip_test "reading and holding $QOS needs root and the file"
fi
lat() { od -An -td4 -N4 "$QOS" | tr -d ' '; }
FREE=$(lat)
if [ "$FREE" = 0 ]; then
  skip_test "another process holds $QOS at 0 already"
fi
ok "the request in force before the test: $FREE us"

# The target says what is in force when it starts, whether it holds the file itself,
# then what is in force every 0.1 s; MODE exit or segv ends it after 0.5 s or so.
cat >"$TMP/holder.sh" <<SH
#!/bin/sh
lat() { od -An -td4 -N4 $QOS | tr -d ' '; }
echo "pid \$\$"
echo "start \$(lat)"
echo "fds \$(ls -l /proc/\$\$/fd | grep -c cpu_dma_latency)"
echo ready
i=0
while :; do
  echo "now \$(lat)"
  i=\$((i + 1))
  case "\$1" in
    exit) [ \$i -ge 5 ] && exit 3 ;;
    segv) [ \$i -ge 5 ] && kill -SEGV \$\$ ;;
  esac
  sleep 0.1
done
SH
chmod +x "$TMP/holder.sh"
profile() { # profile NAME VALUES [DEFAULTS]: a profile of the holder
  cat >"$TMP/$1.json" <<JSON
{ "name": "$1", "command": ["$TMP/holder.sh", "{value}"],
  "knob": { "name": "mode", "values": $2, "argv": {} },
  "ready": { "log": "^ready\$", "timeout": 10 }, "stop": { "grace": 2 },
  "defaults": ${3:-{\}} }
JSON
}
profile holder '["a", "b"]'
released() { [ "$(lat)" = "$FREE" ]; }
logs_have() { # logs_have DIR LINE: every run's stdout.log has LINE
  local log n=0
  for log in "$1"/runs/*/stdout.log; do grep -qx "$2" "$log" || return 1; n=$((n + 1)); done
  [ "$n" -gt 0 ]
}

# --- normal end: held in each window, let go between runs and at the end -------------
rc=0
"$LOOPBENCH" run "$TMP/holder.json" --hold-idle -n 1 -w 0.2 -t 0.5 -o "$TMP/normal" -q \
  >/dev/null 2>"$TMP/normal.err" || rc=$?
check "--hold-idle: the campaign exits 0" [ "$rc" -eq 0 ]
check "  ... every target saw the request at 0 during its run" logs_have "$TMP/normal" "now 0"
check "  ... and none while it started: let go between runs" logs_have "$TMP/normal" "start $FREE"
check "  ... no target inherited the file" logs_have "$TMP/normal" "fds 0"
check "  ... let go at the end" released
check "  ... recorded in results.json, campaign and runs" jq -e \
  '.campaign.hold_idle == true and ([.runs[].idle_held] | all) and (.runs | length) == 2' \
  "$TMP/normal/results.json"
"$LOOPBENCH" report "$TMP/normal" --no-plots -o "$TMP/normal.md" >/dev/null 2>&1 || true
check "  ... and in the report's footnote" \
  grep -q "CPUs held out of idle states: absolute CPU figures are those of a host kept awake" \
  "$TMP/normal.md"

rc=0
"$LOOPBENCH" run "$TMP/holder.json" -s a -n 1 -w 0.2 -t 0.5 -o "$TMP/free" -q >/dev/null 2>&1 || rc=$?
check "without --hold-idle the request stays free through the window" \
  bash -c "[ $rc -eq 0 ] && ! grep -qx 'now 0' '$TMP'/free/runs/*/stdout.log && \
    jq -e '(.campaign | has(\"hold_idle\") | not) and (.runs[0] | has(\"idle_held\") | not)' '$TMP/free/results.json' >/dev/null"
"$LOOPBENCH" compare "$TMP/free" "$TMP/normal" >/dev/null 2>"$TMP/mixed.err" || true
check "compare warns when one campaign was held and the other not" grep -q \
  "with its CPUs not held out of idle states and '.*' held: their absolute CPU figures" \
  "$TMP/mixed.err"
profile held '["a"]' '{ "hold_idle": true }'
rc=0
"$LOOPBENCH" run "$TMP/held.json" -n 1 -w 0.2 -t 0.5 -o "$TMP/held" -q >/dev/null 2>&1 || rc=$?
held_by_profile() { [ "$rc" -eq 0 ] && grep -qx 'now 0' "$TMP"/held/runs/*/stdout.log && released; }
check "defaults.hold_idle in the profile holds as --hold-idle does" held_by_profile

# --- a failed run, a crash of the target ---------------------------------------------
for mode in exit segv; do
  rc=0
  "$LOOPBENCH" run "$TMP/holder.json" --hold-idle -s "$mode" -n 1 -w 0.3 -t 3 -o "$TMP/$mode" -q \
    >/dev/null 2>"$TMP/$mode.err" || rc=$?
  check "a target that ${mode}s in its window: the run fails (exit 1), held until then" \
    bash -c "[ $rc -eq 1 ] && grep -qx 'now 0' '$TMP'/$mode/runs/*/stdout.log"
  check "  ... and the request is let go" released
done

# --- interrupted, and loopbench killed outright -------------------------------------
hold_then() { # hold_then SIGNAL EXPECTED_RC: interrupt a held window
  local sig=$1 want=$2 out=$TMP/sig-$1 rc=0 i
  "$LOOPBENCH" run "$TMP/holder.json" --hold-idle -s a -n 1 -w 0.2 -t 30 -o "$out" -q \
    >/dev/null 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  for i in $(seq 100); do
    grep -qx 'now 0' "$out"/runs/*/stdout.log 2>/dev/null && break
    sleep 0.1
  done
  check "$sig: the request is held in the window" [ "$(lat)" = 0 ]
  local target
  target=$(sed -n 's/^pid //p' "$out"/runs/*/stdout.log 2>/dev/null || true)
  kill -"$sig" "$pid" 2>/dev/null || true
  wait "$pid" || rc=$?
  [ "$sig" = KILL ] && [ -n "$target" ] && kill -9 "$target" 2>/dev/null
  check "  ... loopbench ends with $want" [ "$rc" -eq "$want" ]
  check "  ... and the request is let go" released
}
hold_then INT 130
hold_then TERM 143
hold_then HUP 129
hold_then KILL 137

# --- refused without root --------------------------------------------------------------
if nobody_setup; then
  mkdir -p "$TMP/nobody"
  chown $NOBODY:$NOBODY "$TMP/nobody"
  rc=0
  (cd "$TMP/nobody" && as_nobody env HOME="$TMP/nobody" "$NOBODY_LOOPBENCH" run "$TMP/holder.json" \
    --hold-idle -n 1 -w 0 -t 0.5 -o "$TMP/nobody/out") >"$TMP/nobody.txt" 2>&1 || rc=$?
  cat "$TMP/nobody.txt"
  check "--hold-idle without root is refused (exit 2) before anything runs" bash -c \
    "[ $rc -eq 2 ] && [ ! -e '$TMP/nobody/out' ] && [ \$(wc -l <'$TMP/nobody.txt') -eq 1 ] && \
     grep -q \"cannot open '$QOS' (it takes root)\" '$TMP/nobody.txt'"
fi
check "no target left" no_process_from "$TMP"
