#!/usr/bin/env bash
# Nothing left running (docs/reliability.md, hostile pull request): a target that starts
# far more processes than loopbench's walk of a tree holds (4096), 10,000 children that
# sleep, each in a session of its own (out of the process group, which a signal to the
# group would reach at once), and one more that escapes by a double fork. After
# one short run none of them is left, whatever held the tree: the run's own cgroup
# where loopbench may make one, the process group and the walk where it may not (as an
# unprivileged user, uid 65534 through setpriv, who may not write in the cgroup tree).
# The test counts them by a marker in their command line, and kills survivors itself.
source "$(dirname "$0")/lib.sh"
: "${FORKER:?run through meson test}"

N=10000
# Room for them on this host, with a margin for everything else: pids, threads, and the
# processes this user may have (the helper stops at its own cap, 20,000, whatever N is).
running=$(ls /proc | grep -c "^[0-9]")
pid_max=$(cat /proc/sys/kernel/pid_max)
threads_max=$(cat /proc/sys/kernel/threads-max)
nproc=$(ulimit -u)
echo "host: pid_max $pid_max, threads-max $threads_max, ulimit -u $nproc, $running processes"
if [ $((pid_max - running)) -lt $((N + 5000)) ] || [ $((threads_max - running)) -lt $((N + 5000)) ] ||
    { [ "$nproc" != unlimited ] && [ "$nproc" -lt $((N + 1000)) ]; }; then
  skip_test "too few pids, threads or processes left for $N more"
fi

# The target forks its children, says so, and sleeps; loopbench stops it at once (grace
# 0: SIGKILL, and the cgroup's kill where there is one).
fork_profile() { # fork_profile NAME [FORKER]: the profile of that case, its marker in argv
  cat >"$TMP/$1.json" <<JSON
{ "name": "fork", "command": ["${2:-$FORKER}", "$N", "escape", "sessions", "$TMP/mark-$1"],
  "knob": { "name": "n", "values": ["1"], "env": "FORK_N" },
  "ready": { "log": "^forker: [0-9]+ children ready$", "timeout": 120 },
  "stop": { "grace": 0 } }
JSON
}

count() { pgrep -c -f -- "$TMP/mark-$1" || true; }
# kill_left NAME: kill what the code under test left, by pid, until none is left.
kill_left() {
  local pids
  for _ in $(seq 1 100); do
    pids=$(pgrep -f -- "$TMP/mark-$1" || true)
    [ -z "$pids" ] && return 0
    # shellcheck disable=SC2086
    kill -9 $pids 2>/dev/null || true
    sleep 0.1
  done
}

# Where loopbench makes its targets' cgroups: beside this shell's, in the cgroup2 tree.
home=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)$(sed -n 's/^0:://p' /proc/self/cgroup)

# stop_case NAME LOOPBENCH FORKER [RUNNER...]: one run of NAME's profile, LOOPBENCH started
# through RUNNER; sets made (the children the target said it started), left (alive after
# the run), stop_s (from the stop phase to loopbench's exit; empty when it never stopped a
# target) and cgroup (the run's, seen while it ran). loopbench's stderr goes to NAME.err,
# each line behind the time it came.
stop_case() {
  local name=$1 loopbench=$2 lb stamper t_stop t_end rc=0
  fork_profile "$name" "$3"
  shift 3
  mkdir -p "$TMP/$name"
  chmod 777 "$TMP/$name"
  mkfifo "$TMP/$name.fifo"
  while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done \
    <"$TMP/$name.fifo" >"$TMP/$name.err" &
  stamper=$!
  "$@" "$loopbench" run "$TMP/$name.json" -n 1 -w 0 -t 1 -o "$TMP/$name/out" \
    >/dev/null 2>"$TMP/$name.fifo" &
  lb=$!
  cgroup=''
  while kill -0 "$lb" 2>/dev/null; do
    [ -n "$cgroup" ] || cgroup=$(compgen -G "${home%/}/loopbench.$lb.*" || true)
    sleep 0.05
  done
  wait "$lb" || rc=$?
  t_end=$(date +%s.%N)
  wait "$stamper"
  made=$(sed -n 's/^forker: \([0-9]*\) children ready$/\1/p' "$TMP/$name"/out/runs/*/stdout.log)
  left=$(count "$name")
  t_stop=$(awk '/: stop$/ { print $1; exit }' "$TMP/$name.err")
  stop_s=${t_stop:+$(awk -v a="$t_stop" -v b="$t_end" 'BEGIN { printf "%.2f", b - a }')}
  echo "$name: exit $rc, the target started ${made:-no} children, $left processes left;" \
    "$([ -n "$stop_s" ] && echo "the stop took $stop_s s" || echo "no stop began")"
  cut -d" " -f2- "$TMP/$name.err" | grep -v ': \(start\|warm-up\|sample.*\|stop\)$' || true
  kill_left "$name"
}

doc() { echo "$TMP/$1/out/results.json"; }
stopped_within() { [ -n "$stop_s" ] && lt "$stop_s" "$1"; }

# --- 1. as this user: the run's cgroup where it may make one ----------------------------
stop_case own "$LOOPBENCH" "$FORKER"
containment=$(jq -r '.runs[0].exit.containment' "$(doc own)")
check "10,000 children in sessions of their own and an escapee: all started" [ "$made" = "$N" ]
check "  ... none left after the run ($containment)" [ "$left" -eq 0 ]
# Killed at once, then reaped a walk's worth (4096) of the dead at a time, being out of
# the group: 0.7 to 3.9 s on a busy 2-CPU host with ASan, 5 to 8 s under valgrind.
check "  ... the stop ended within 30 s" stopped_within 30
check "  ... and did not say that any survived" bash -c "! grep -q survived '$TMP/own.err'"
check "  ... the run records what held the tree" \
  jq -e '.runs[0].exit.containment | . == "cgroup2" or . == "process-group"' "$(doc own)"
check "  ... and that it needed SIGKILL" jq -e '.runs[0].exit.killed' "$(doc own)"
check "  ... the results read as the schema says" \
  jq -e -f "$SOURCE_ROOT/tests/data/results-schema.jq" "$(doc own)"
if [ "$containment" = cgroup2 ]; then
  check "  ... in its own cgroup while it ran, $cgroup" [ -n "$cgroup" ]
  check "  ... which is gone with it" [ ! -e "$cgroup" ]
else
  echo "skip: the run had no cgroup of its own (containment $containment): no cgroup to check"
fi

# --- 2. the cgroup goes on every path: an interrupt mid-sample, a start that fails -------
if [ "$containment" = cgroup2 ]; then
  N=100 fork_profile int
  "$LOOPBENCH" run "$TMP/int.json" -n 1 -w 0 -t 30 -o "$TMP/int" >/dev/null 2>"$TMP/int.err" &
  lb=$!
  PIDS+=("$lb")
  for _ in $(seq 1 200); do grep -q ': sample' "$TMP/int.err" && break; sleep 0.05; done
  cgroup=$(compgen -G "${home%/}/loopbench.$lb.*" || true)
  kill -INT "$lb"
  rc=0
  wait "$lb" || rc=$?
  left=$(count int)
  kill_left int
  check "SIGINT mid-sample, 100 children: exit 130, the run interrupted" bash -c "[ $rc -eq 130 ] &&
    jq -e '.runs[0].status == \"interrupted\"' '$TMP/int/results.json' >/dev/null"
  check "  ... none left, and its cgroup ${cgroup:-(none seen)} gone" \
    bash -c "[ $left -eq 0 ] && [ -n '$cgroup' ] && [ ! -e '$cgroup' ]"
  # a program there, executable, whose interpreter is not (run refuses one that is not
  # there before it starts anything: exit 2)
  printf '#!%s/no-such-interpreter\n' "$TMP" >"$TMP/no-interpreter"
  chmod +x "$TMP/no-interpreter"
  sed "s|\"$FORKER\"|\"$TMP/no-interpreter\"|" "$TMP/int.json" >"$TMP/nocmd.json"
  rc=0
  "$LOOPBENCH" run "$TMP/nocmd.json" -n 1 -w 0 -t 1 -o "$TMP/nocmd" >/dev/null 2>"$TMP/nocmd.err" &
  lb=$!
  wait "$lb" || rc=$?
  check "a target that cannot start: exit 1, no cgroup of that loopbench left" bash -c "[ $rc -eq 1 ] &&
    ! compgen -G '${home%/}/loopbench.$lb.*' >/dev/null"
fi

# --- 3. as a user who may make no cgroup: the process group and the walk ----------------
nobody_setup "$FORKER" || exit 0
stop_case nobody "$NOBODY_LOOPBENCH" "$TMP/nobody-bin/$(basename "$FORKER")" as_nobody
check "as uid 65534: all started" [ "$made" = "$N" ]
check "  ... none left after the run" [ "$left" -eq 0 ]
# Without the cgroup, children out of the group die a walk's worth (4096) at a time, and
# each walk through live processes takes seconds on a busy host: 1.5 to 12 s with ASan,
# 12.6 s under valgrind, within the minute the stop gives a tree that goes on dying.
check "  ... the stop ended within 45 s" stopped_within 45
check "  ... and did not say that any survived" bash -c "! grep -q survived '$TMP/nobody.err'"
check "  ... the run records the process group as what held the tree" \
  jq -e '.runs[0].exit.containment == "process-group" and .runs[0].exit.killed' "$(doc nobody)"
