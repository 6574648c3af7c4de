# Shared helpers for the end-to-end tests (sourced).
# Every test makes its files under one temporary directory and kills what it started.

set -euo pipefail

: "${LOOPBENCH:?run through meson test}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/loopbench-e2e-XXXXXX")
PIDS=()
fails=0

# Under `meson test --setup valgrind`, every loopbench the test runs runs under memcheck;
# its reports land in $TMP/valgrind.PID.log, and cleanup fails the test on any of them.
# valgrind is named by its full path: some tests run loopbench with an empty PATH. The
# copies loopbench forks without an exec (a target's shim, and its PID namespace's init,
# pid 1 in every namespace, so that its PID.log would clash) are not followed: the test
# command runs them under the sanitizers.
# valgrind_wrapper WRAPPER BINARY SUPPRESSIONS: a script at WRAPPER that runs BINARY under
# memcheck.
valgrind_wrapper() {
  cat >"$1" <<EOF
#!/bin/sh
exec $(command -v valgrind) --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect \\
  --show-leak-kinds=definite,indirect --suppressions="$3" \\
  --child-silent-after-fork=yes --log-file="$TMP/valgrind.%p.log" "$2" "\$@"
EOF
  chmod 755 "$1"
}
LOOPBENCH_BIN=$LOOPBENCH
if [ -n "${LOOPBENCH_VALGRIND:-}" ]; then
  valgrind_wrapper "$TMP/loopbench-valgrind" "$LOOPBENCH_BIN" "$SOURCE_ROOT/tests/data/valgrind.supp"
  LOOPBENCH=$TMP/loopbench-valgrind
fi

# Another user: uid 65534 through setpriv. The build may sit where that user cannot go (a
# clone in root's home, mode 700 on Debian), so what it runs is copied into this test's
# directory, opened to every user (sticky, as /tmp; valgrind's logs are written there too).
# nobody_setup PROG...: copies of loopbench and of each PROG in $TMP/nobody-bin, loopbench
# as $NOBODY_LOOPBENCH (under valgrind when the test's is); or "skip: REASON" printed and
# status 1 when this test cannot run anything as that user.
NOBODY=65534
as_nobody() { setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"; }
# can_be_nobody: whether this test may switch to that user (else "skip: REASON", status 1).
can_be_nobody() {
  [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && return 0
  echo "skip: running as another user needs root and setpriv"
  return 1
}
nobody_setup() {
  can_be_nobody || return 1
  chmod 1777 "$TMP"
  if ! as_nobody test -x "$TMP"; then
    echo "skip: uid $NOBODY cannot reach this test's directory $TMP (a directory above it is closed to other users: set TMPDIR)"
    return 1
  fi
  local bin=$TMP/nobody-bin prog
  mkdir -p "$bin"
  chmod 755 "$bin"
  for prog in "$LOOPBENCH_BIN" "$@"; do install -m 755 "$prog" "$bin/"; done
  NOBODY_LOOPBENCH=$bin/$(basename "$LOOPBENCH_BIN")
  if [ -n "${LOOPBENCH_VALGRIND:-}" ]; then
    install -m 644 "$SOURCE_ROOT/tests/data/valgrind.supp" "$bin/"
    valgrind_wrapper "$bin/loopbench-valgrind" "$NOBODY_LOOPBENCH" "$bin/valgrind.supp"
    NOBODY_LOOPBENCH=$bin/loopbench-valgrind
  fi
}

# procs_in DIR: processes whose command line names DIR or whose working directory is
# inside it (a target started as ./refshard from DIR names it nowhere in its argv).
procs_in() {
  local dir=$1 p cwd
  for p in /proc/[0-9]*; do
    cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
    case "$cwd" in "$dir" | "$dir"/*) echo "${p#/proc/}" ;; esac
  done
  pgrep -f "$dir" || true
}

# descends_from_us PID: PID runs, and this test's shell is among its ancestors.
descends_from_us() {
  local p=$1 i
  for i in $(seq 64); do
    p=$(ps -o ppid= -p "$p" 2>/dev/null | tr -d ' ')
    [ -n "$p" ] && [ "$p" != 0 ] || return 1
    [ "$p" = "$$" ] && return 0
  done
  return 1
}

cleanup() {
  local pid left log
  # Only a pid that still descends from this shell: one the test reaped may be another
  # process's by now (pids wrap at 32768, within a minute on a busy host), and a stale
  # kill -9 here killed another test's process. The rest are found by where they run.
  for pid in "${PIDS[@]}"; do
    descends_from_us "$pid" && kill -9 "$pid" 2>/dev/null || true
  done
  # Anything still running from this test's directory is an orphan: kill it, and fail.
  left=$(procs_in "$TMP" | sort -u)
  if [ -n "$left" ]; then
    echo "FAIL: processes left behind:"
    for pid in $left; do ps -o pid=,args= -p "$pid" || true; done
    kill -9 $left 2>/dev/null || true
    fails=$((fails + 1))
  fi
  # Every campaign loopbench made for the test reads back and writes again as the same
  # document (a test that makes one by hand marks its directory .handmade).
  local doc
  while IFS= read -r -d '' doc; do
    [ -n "${ROUNDTRIP:-}" ] || break
    [ -e "$(dirname "$doc")/.handmade" ] && continue
    "$ROUNDTRIP" "$doc" || { echo "FAIL: $doc does not read back as written"; fails=$((fails + 1)); }
  done < <(find "$TMP" -name results.json -type f -print0 2>/dev/null)
  for log in "$TMP"/valgrind.*.log; do
    [ -s "$log" ] || continue
    echo "FAIL: valgrind reported errors:"
    cat "$log"
    fails=$((fails + 1))
  done
  rm -rf "$TMP"
  if [ "$fails" -gt 0 ]; then exit 1; fi
}
trap cleanup EXIT

ok() { printf 'ok: %s\n' "$*"; }
# skip_test REASON: this whole test cannot run here; meson counts it as skipped (77).
skip_test() {
  printf 'skip: %s\n' "$*"
  exit 77
}
fail() { printf 'FAIL: %s\n' "$*"; fails=$((fails + 1)); }

check() { # check "description" command...
  local what=$1; shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}

# no_process_from DIR: nothing runs from DIR (see procs_in).
no_process_from() { [ -z "$(procs_in "$1")" ]; }

# free_port: a TCP port on 127.0.0.1 that nothing listens on just now.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# float comparisons with awk: lt A B, gt A B
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
between() { gt "$1" "$2" && lt "$1" "$3"; } # between X LOW HIGH, exclusive
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d < t && -d < t) }'; } # near A B TOLERANCE

# The burner (tests/helpers/burner.c) measures itself. Started with --delay D --seconds S
# --linger, it sleeps D, burns S, then sleeps until stopped, and its "slept" lines give
# the CPU it used from just before the one sleep to just before the other: the truth for a
# window that opens after "burner: started" and within D, and closes after the burn,
# whatever share of a core other processes left it (tests/e2e/accuracy.sh).
# said LOG KIND FIELD: "LINES NS": the number of the burner's KIND lines ("burned",
# "slept") in LOG and the sum of their FIELD (cpu_ns or task_clock_ns).
said() {
  awk -v k="$2" -v f="$3=" '$1 == "burner:" && $2 == k {
      n++; for (i = 3; i <= NF; i++) if (index($i, f) == 1) s += substr($i, length(f) + 1) }
    END { printf "%d %.0f\n", n, s }' "$1"
}
# run_log CAMPAIGN I: the stdout.log of run I of a campaign.
run_log() { echo "$1/$(jq -r ".runs[$2].stdout_log" "$1/results.json")"; }
# slept_truth CAMPAIGN I: the percent of a core run I's burners used in its window by the
# clock of its CPU source (perf-task-clock: their task clock; else their process clocks).
slept_truth() {
  local field=cpu_ns ns
  [ "$(jq -r ".runs[$2].cpu_source" "$1/results.json")" = perf-task-clock ] && field=task_clock_ns
  read -r _ ns < <(said "$(run_log "$1" "$2")" slept "$field")
  awk -v ns="$ns" -v w="$(jq ".runs[$2].wall_seconds" "$1/results.json")" 'BEGIN { printf "%.4f\n", ns / 1e9 / w * 100 }'
}
# reads_truth CAMPAIGN I [TOLERANCE]: run I's window read its slept_truth, within
# TOLERANCE points of a core (default 0.1, the documented accuracy: docs/reliability.md).
reads_truth() {
  near "$(jq ".runs[$2].cpu_percent" "$1/results.json")" "$(slept_truth "$1" "$2")" "${3:-0.1}"
}

# busy_mark: sets BUSY_MARK to the machine's CPU time so far, busy and in all (/proc/stat),
# and this test's own (its shell and the children it has reaped), in seconds. Not in a
# subshell: one's times are its own.
busy_mark() {
  local own
  times >"$TMP/.times"
  own=$(awk '{ for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } } END { print s }' "$TMP/.times")
  BUSY_MARK=$(awk -v hz="$(getconf CLK_TCK)" -v own="$own" 'NR == 1 {
    busy = $2 + $3 + $4 + $7 + $8 + $9; print busy / hz, (busy + $5 + $6) / hz, own }' /proc/stat)
}
# others_busy_since MARK (a BUSY_MARK): sets OTHERS_BUSY to the percent of the machine's
# CPUs that processes other than this test's used since.
others_busy_since() {
  local mark=$1
  busy_mark
  OTHERS_BUSY=$(awk -v mark="$mark" -v now="$BUSY_MARK" 'BEGIN { split(mark, a, " "); split(now, b, " ")
    d = b[2] - a[2]; o = (b[1] - a[1]) - (b[3] - a[3]); printf "%.0f\n", (d > 0 && o > 0) ? 100 * o / d : 0 }')
}
# rerun_when_busy WHAT COMMAND...: COMMAND, a section of checks that judge how the host ran a
# target (a window's steadiness, a deadline), where other processes can take the target's
# CPU and no truth can be measured beside it. When a check fails while other processes used
# a quarter of the CPUs or more over it, it runs once more and the second time is judged;
# both are printed.
rerun_when_busy() {
  local what=$1 before=$fails mark
  shift
  busy_mark
  mark=$BUSY_MARK
  "$@"
  [ "$fails" -eq "$before" ] && return 0
  others_busy_since "$mark"
  if [ "$OTHERS_BUSY" -lt 25 ]; then
    echo "($what: other processes used $OTHERS_BUSY% of the CPUs meanwhile; the failure stands)"
    return 0
  fi
  echo "($what failed while other processes used $OTHERS_BUSY% of the CPUs: once more, and the second is judged)"
  fails=$before
  "$@"
}

# variants_campaign OUT: a real campaign of two builds of refshard in OUT.
source "$(dirname "${BASH_SOURCE[0]}")/../helpers/variants-campaign.sh"
