#!/usr/bin/env bash
# Faults injected into real campaigns: signals at each phase, targets that crash, hang
# on SIGTERM, never get ready or double-fork, a second campaign on the same config, a
# results directory that turns read-only or fills up, and --resume after an interrupt
# or a SIGKILL. Each checks: nothing lost (config byte-identical, completed runs kept),
# no process left, a clear message, the documented exit status. See docs/reliability.md.
source "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/cfg"
cfg=$TMP/cfg/app.json
printf '{\n  "server": { "idleWait": 0, "name": "operator'"'"'s" }\n}\n' >"$cfg"
chmod 640 "$cfg"
cp "$cfg" "$TMP/original.json"

# profile NAME [BURNER ARGS...]: a burner target whose knob is a key of the operator's
# config file; stop grace 1 s unless GRACE is set.
profile() {
  local name=$1; shift
  local args="" a
  for a in "$@"; do args="$args, \"$a\""; done
  cat >"$TMP/$name.json" <<JSON
{ "name": "$name", "command": ["$BURNER", "--share", "0.05"$args],
  "knob": { "name": "idle", "values": ["0", "2"],
            "config": { "file": "cfg/app.json", "path": ["server", "idleWait"], "type": "number" } },
  "ready": { "delay": 0 }, "stop": { "grace": ${GRACE:-1} } }
JSON
}

config_intact() { cmp -s "$cfg" "$TMP/original.json" && [ "$(stat -c %a "$cfg")" = 640 ]; }
intact_and_clean() { config_intact && no_process_from "$TMP"; }
no_leftovers() { [ -z "$(ls -A "$TMP/cfg" | grep -v '^app.json$')" ]; }

# lb_bg OUT ARGS...: start `loopbench run ARGS` in the background with its stderr in
# OUT.err; $lb is its pid.
lb_bg() {
  local out=$1; shift
  "$LOOPBENCH" run "$@" 2>"$out.err" >"$out.out" &
  lb=$!
  PIDS+=("$lb")
}
# wait_for FILE PATTERN: until FILE has a line matching PATTERN (10 s at most).
wait_for() {
  for _ in $(seq 1 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  return 1
}
# finish: wait for $lb; $rc is its exit status.
finish() { rc=0; wait "$lb" || rc=$?; }

profile steady --forever

# --- 1. SIGHUP mid-sample, SIGINT mid-warm-up -----------------------------------------
lb_bg "$TMP/hup" "$TMP/steady.json" -n 1 -w 0.2 -t 30 -o "$TMP/hup"
wait_for "$TMP/hup.err" ": sample"
sleep 0.3
check "config edited while sampling" bash -c "! cmp -s '$cfg' '$TMP/original.json'"
kill -HUP "$lb"
finish
check "SIGHUP mid-sample exits 129" [ "$rc" -eq 129 ]
check "  ... config byte-identical, mode kept, no journal or lock left" eval "config_intact && no_leftovers"
check "  ... the run marked interrupted by SIGHUP" jq -e \
  '.runs[0].status == "interrupted" and .campaign.interrupted_by == "SIGHUP"' "$TMP/hup/results.json"
check "  ... a message naming the signal and --resume" grep -q "interrupted by Hangup.*--resume" "$TMP/hup.err"
check "  ... no process of the target left" no_process_from "$TMP"

lb_bg "$TMP/warm" "$TMP/steady.json" -n 1 -w 30 -t 1 -o "$TMP/warm"
wait_for "$TMP/warm.err" ": warm-up"
kill -INT "$lb"
finish
check "SIGINT mid-warm-up exits 130" [ "$rc" -eq 130 ]
check "  ... config byte-identical" config_intact
check "  ... the run marked interrupted, not sampled" jq -e \
  '.runs[0].status == "interrupted" and .runs[0].cpu_percent == null' "$TMP/warm/results.json"
check "  ... no process of the target left" no_process_from "$TMP"

# --- 2. a target that hangs on SIGTERM -------------------------------------------------
GRACE=30 profile deaf --forever --ignore-term
lb_bg "$TMP/deaf" "$TMP/deaf.json" -n 1 -w 0.2 -t 30 -o "$TMP/deaf"
wait_for "$TMP/deaf.err" ": sample"
start=$(date +%s.%N)
kill -INT "$lb"
wait_for "$TMP/deaf.err" ": stop"
sleep 0.5
kill -INT "$lb"
finish
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
check "a target deaf to SIGTERM: a second SIGINT skips its 30 s grace (stopped in $took s)" lt "$took" 5
check "  ... exit 130, killed, config byte-identical" bash -c "[ $rc -eq 130 ] && cmp -s '$cfg' '$TMP/original.json' &&
  jq -e '.runs[0].exit.killed' '$TMP/deaf/results.json' >/dev/null"
check "  ... no process of the target left" no_process_from "$TMP"

GRACE=0.5 profile deaf --forever --ignore-term
rc=0
"$LOOPBENCH" run "$TMP/deaf.json" -n 1 -w 0 -t 0.5 -o "$TMP/deaf2" -q >/dev/null 2>"$TMP/deaf2.err" || rc=$?
check "at the end of a run, a target deaf to SIGTERM is killed after its grace; exit 0" [ "$rc" -eq 0 ]
check "  ... recorded as killed, the run ok" jq -e \
  '[.runs[] | .status == "ok" and .exit.killed] | all and length == 2' "$TMP/deaf2/results.json"
check "  ... config byte-identical, no process left" intact_and_clean

# --- 3. a target that never gets ready -------------------------------------------------
port=$(free_port)
sed "s|\"ready\": { \"delay\": 0 }|\"ready\": { \"tcp\": \"127.0.0.1:$port\", \"timeout\": 1 }|" \
  "$TMP/steady.json" >"$TMP/never.json"
rc=0
"$LOOPBENCH" run "$TMP/never.json" -n 1 -w 0 -t 1 -o "$TMP/never" >/dev/null 2>"$TMP/never.err" || rc=$?
check "a target never ready: exit 1" [ "$rc" -eq 1 ]
check "  ... the message names the readiness rule that failed" \
  grep -q "not ready after 1 s: no TCP connections accepted at 127.0.0.1:$port" "$TMP/never.err"
check "  ... the run failed" jq -e '.runs[0].status == "failed"' "$TMP/never/results.json"
check "  ... config byte-identical, no process left" intact_and_clean

# --- 4. a target that crashes mid-sample, with and without --keep-going ---------------
profile crash --forever --crash-after 0.8
rc=0
"$LOOPBENCH" run "$TMP/crash.json" -n 2 -w 0.3 -t 2 -o "$TMP/crash" >/dev/null 2>"$TMP/crash.err" || rc=$?
check "a crash in the sample window stops the campaign: exit 1" [ "$rc" -eq 1 ]
check "  ... naming the run, the phase and the signal" \
  grep -Eq "run 1 of 4 \(idle = 0 #1\) failed: the target was killed by signal [0-9]+ \(.*\).* during the sample window" "$TMP/crash.err"
check "  ... one run recorded, failed with its signal" jq -e \
  '(.runs | length) == 1 and .runs[0].status == "failed" and (.runs[0].exit.signal | . > 0)' "$TMP/crash/results.json"
check "  ... config byte-identical, no process left" intact_and_clean
# The knob picks when the target crashes: 0.8 s in, or never (0).
cat >"$TMP/crash-kg.json" <<JSON
{ "name": "crash-kg", "command": ["$BURNER", "--share", "0.05", "--forever", "--crash-after", "{value}"],
  "knob": { "name": "crash", "values": ["0.8", "0"], "argv": {} },
  "fixed": [ { "name": "idle", "value": "2",
               "config": { "file": "cfg/app.json", "path": ["server", "idleWait"], "type": "number" } } ],
  "ready": { "delay": 0 }, "stop": { "grace": 1 } }
JSON
rc=0
"$LOOPBENCH" run "$TMP/crash-kg.json" -n 2 -w 0.3 -t 1.5 --keep-going -o "$TMP/crash-kg" \
  >"$TMP/crash-kg.out" 2>"$TMP/crash-kg.err" || rc=$?
check "with --keep-going the campaign goes on after a crash; exit 1 all the same" [ "$rc" -eq 1 ]
check "  ... every run tried: the crashing setting's failed, the other's ok" jq -e '
  [.runs[] | [.setting, .status]] | sort == [["0", "ok"], ["0", "ok"], ["0.8", "failed"], ["0.8", "failed"]]' \
  "$TMP/crash-kg/results.json"
"$LOOPBENCH" report "$TMP/crash-kg" --no-plots >"$TMP/crash-kg.md" 2>&1 || true
check "  ... and the report names the runs that failed, and how" grep -Eq \
  "2 runs did not complete: crash \`0.8\` #1 \(failed: the target was killed by signal [0-9]+.*\); crash \`0.8\` #2" \
  "$TMP/crash-kg.md"
check "  ... config byte-identical" config_intact

# --- 5. a target that double-forks ------------------------------------------------------
# It sleeps 1 s, burns 1 s, sleeps until stopped (lib.sh): lost, the grandchild would read
# as its parent's nothing; counted twice, twice what the two say they used in the window.
cat >"$TMP/fork.json" <<JSON
{ "name": "fork", "command": ["$BURNER", "--share", "0.20", "--delay", "1", "--seconds", "1", "--linger", "--double-fork"],
  "knob": { "name": "idle", "values": ["0"],
            "config": { "file": "cfg/app.json", "path": ["server", "idleWait"], "type": "number" } },
  "ready": { "log": "^burner: started", "timeout": 10 }, "stop": { "grace": 1 } }
JSON
rc=0
"$LOOPBENCH" run "$TMP/fork.json" -n 1 -w 0 -t 2.4 -o "$TMP/fork" -q >/dev/null 2>"$TMP/fork.err" || rc=$?
# The tree reaps the grandchild's parent in the window: two USER_HZ ticks of room for the
# process clocks (tests/e2e/accuracy.sh).
check "a double-forked grandchild is measured: $(jq '.runs[0].cpu_percent' "$TMP/fork/results.json") %, it and its parent used $(slept_truth "$TMP/fork" 0) % of the window" \
  reads_truth "$TMP/fork" 0 "$(awk -v hz="$(getconf CLK_TCK)" 'BEGIN { print 0.1 + 100 * 2 / hz / 2.4 }')"
check "  ... and stopped: exit 0" [ "$rc" -eq 0 ]
check "  ... config byte-identical, no process left" intact_and_clean

# --- 6. two campaigns on one config ----------------------------------------------------
lb_bg "$TMP/first" "$TMP/steady.json" -n 1 -w 0.2 -t 3 -o "$TMP/first"
wait_for "$TMP/first.err" ": sample"
rc=0
"$LOOPBENCH" run "$TMP/steady.json" -n 1 -w 0 -t 1 -o "$TMP/second" >/dev/null 2>"$TMP/second.err" || rc=$?
check "a second campaign on a config in use is refused: exit 1" [ "$rc" -eq 1 ]
check "  ... naming the file and the loopbench holding it" \
  grep -q "config '.*cfg/app.json' is in use by another loopbench (pid $lb" "$TMP/second.err"
rc=0
"$LOOPBENCH" restore "$cfg" >/dev/null 2>"$TMP/restore-busy.err" || rc=$?
check "  ... and so is restore, while it runs (exit 1)" bash -c "[ $rc -eq 1 ] &&
  grep -q 'in use by another loopbench' '$TMP/restore-busy.err'"
finish
check "  ... the first campaign is not disturbed (exit 0, config intact)" bash -c "[ $rc -eq 0 ] &&
  cmp -s '$cfg' '$TMP/original.json'"

# --- 7. --resume after an interrupt and after a SIGKILL --------------------------------
lb_bg "$TMP/res" "$TMP/steady.json" -n 2 -w 0.2 -t 1 -o "$TMP/res"
for _ in $(seq 1 200); do
  [ "$(jq '[.runs[] | select(.status == "ok")] | length' "$TMP/res/results.json" 2>/dev/null)" = 2 ] && break
  sleep 0.05
done
kill -INT "$lb"
finish
check "interrupted after two runs (exit 130)" bash -c "[ $rc -eq 130 ] &&
  jq -e '[.runs[] | select(.status == \"ok\")] | length == 2' '$TMP/res/results.json' >/dev/null"
jq -c '[.runs[] | select(.status == "ok") | del(.noise)]' "$TMP/res/results.json" >"$TMP/kept.json"
cp "$TMP/res/runs/0-1/stdout.log" "$TMP/kept-0-1.log"
rc=0
"$LOOPBENCH" run --resume "$TMP/res" -q >"$TMP/res2.out" 2>"$TMP/res2.err" || rc=$?
check "--resume completes the campaign: exit 0" [ "$rc" -eq 0 ]
check "  ... every planned run ok, in plan order, resumed once" jq -e '
  [.runs[].status] == ["ok", "ok", "ok", "ok"] and .campaign.state == "finished"
  and ([.runs[] | .dir] == [.campaign.plan[] | .dir]) and (.campaign.resumed_at | length) == 1' \
  "$TMP/res/results.json"
check "  ... the completed runs kept as they were, their logs untouched" bash -c "
  jq -c '[.runs[0, 1] | del(.noise)]' '$TMP/res/results.json' | cmp -s - '$TMP/kept.json' &&
  cmp -s '$TMP/res/runs/0-1/stdout.log' '$TMP/kept-0-1.log'"
check "  ... the file still matches the schema" jq -e -f "$SOURCE_ROOT/tests/data/results-schema.jq" "$TMP/res/results.json"
check "  ... config byte-identical" config_intact
check "  ... the summary printed" grep -q "^| 2 " "$TMP/res2.out"

lb_bg "$TMP/kill" "$TMP/steady.json" -n 1 -w 0.2 -t 30 -o "$TMP/kill"
wait_for "$TMP/kill.err" ": sample"
kill -9 "$lb"
wait "$lb" 2>/dev/null || true
for _ in $(seq 1 100); do no_process_from "$TMP" && break; sleep 0.05; done
check "SIGKILL mid-sample: the target dies with loopbench" no_process_from "$TMP"
check "  ... the campaign was on disk from its start (state running)" jq -e \
  '.campaign.state == "running" and (.campaign.plan | length) == 2' "$TMP/kill/results.json"
rc=0
"$LOOPBENCH" run --resume "$TMP/kill" -q >/dev/null 2>"$TMP/kill2.err" &
lb=$!
PIDS+=("$lb")
wait_for "$TMP/kill2.err" "restored from journal" || true
check "--resume after SIGKILL first puts the config back, saying so" \
  grep -q "config '.*app.json' restored from journal" "$TMP/kill2.err"
sleep 0.5
kill -INT "$lb"
finish
check "  ... then runs (interrupted again here: exit 130, config intact)" bash -c "[ $rc -eq 130 ] &&
  cmp -s '$cfg' '$TMP/original.json'"

rc=0
"$LOOPBENCH" run --resume "$TMP/res" -s 0,2 >/dev/null 2>"$TMP/res-usage.err" || rc=$?
check "--resume with --settings is bad usage: exit 2, one line" bash -c "[ $rc -eq 2 ] &&
  grep -q \"'--settings' cannot be combined\" '$TMP/res-usage.err'"
echo ' ' >>"$TMP/steady.json"
rc=0
"$LOOPBENCH" run --resume "$TMP/kill" >/dev/null 2>"$TMP/changed.err" || rc=$?
check "--resume refuses a changed profile: exit 2" [ "$rc" -eq 2 ]
check "  ... saying so" grep -q "profile '.*steady.json' changed since the campaign" "$TMP/changed.err"
rc=0
"$LOOPBENCH" run --resume "$TMP/cfg" >/dev/null 2>"$TMP/nothing.err" || rc=$?
check "--resume of a directory without a campaign: exit 2 naming results.json" bash -c "[ $rc -eq 2 ] &&
  grep -q \"cannot read '$TMP/cfg/results.json'\" '$TMP/nothing.err'"
check "  ... config byte-identical" config_intact

# --- 8. the results directory turns read-only, then fills up ---------------------------
# Needs a private mount namespace for a small tmpfs: root, or an unprivileged user
# namespace. Both are run inside one, with the config outside it.
if unshare -m true 2>/dev/null; then ns=(unshare -m --propagation private)
elif unshare -rm true 2>/dev/null; then ns=(unshare -rm --propagation private)
else ns=(); fi

# fs_fault NAME ACTION: a campaign with its results on a fresh 1 MiB tmpfs; after the
# first run completes, ACTION ("ro" or "full") is done to that file system.
fs_fault() {
  local name=$1 action=$2
  mkdir -p "$TMP/$name"
  "${ns[@]}" bash -c '
    set -u
    fs=$1 action=$2; shift 2
    mount -t tmpfs -o size=1m tmpfs "$fs" || exit 99
    "$@" -o "$fs/out" &
    lb=$!
    polls=0
    for polls in $(seq 1 400); do
      n=$(jq "[.runs[] | select(.status == \"ok\")] | length" "$fs/out/results.json" 2>/dev/null || echo 0)
      [ "$n" -ge 1 ] && break
      sleep 0.05
    done
    cp "$fs/out/results.json" "$fs.after-first.json"
    # A read-only bind mount over the results directory: a plain remount of the file
    # system would be refused while the target has its log open for writing.
    if [ "$action" = ro ]; then mount --bind "$fs/out" "$fs/out" && mount -o remount,bind,ro "$fs/out"
    else dd if=/dev/zero of="$fs/fill" bs=64k 2>/dev/null; fi
    echo "watcher: $n run(s) ok after $polls polls; the fault: exit $?" >&2
    rc=0; wait $lb || rc=$?
    exit $rc' _ "$TMP/$name" "$action" "$LOOPBENCH" run "$TMP/steady.json" -n 12 -w 0.2 -t 0.5 \
    >/dev/null 2>"$TMP/$name.err"
}
if [ ${#ns[@]} -gt 0 ]; then
  rc=0; fs_fault ro ro || rc=$?
  # Once, beside two CPU spinners and the other tests, neither this nor the message held:
  # likely the watcher, starved, saw the first run only once the 3 planned had ended (the
  # campaign now plans 12; the fault stops it at the next write). What it said is shown
  # if it happens again (99: the tmpfs could not be mounted).
  [ "$rc" -eq 1 ] || { echo "exit $rc; its stderr:"; grep watcher "$TMP/ro.err"; tail -5 "$TMP/ro.err"; }
  check "results directory made read-only mid-campaign: exit 1" [ "$rc" -eq 1 ]
  check "  ... a clear message naming the path and the error" \
    grep -q "'$TMP/ro/out/.*': Read-only file system" "$TMP/ro.err"
  check "  ... the completed run was saved before" jq -e '.runs[0].status == "ok"' "$TMP/ro.after-first.json"
  check "  ... config byte-identical, no process left" intact_and_clean
  rc=0; fs_fault full full || rc=$?
  [ "$rc" -eq 1 ] || { echo "exit $rc; its stderr:"; grep watcher "$TMP/full.err"; tail -5 "$TMP/full.err"; }
  check "results file system full mid-campaign: exit 1" [ "$rc" -eq 1 ]
  check "  ... a clear message (No space left on device)" grep -q "No space left on device" "$TMP/full.err"
  check "  ... config byte-identical, no process left" intact_and_clean
else
  echo "skip: read-only and full results directory (no mount namespace: not root, no user namespaces)"
fi

check "nothing of loopbench's left beside the config" no_leftovers
[ "$fails" -eq 0 ]
