# Shared helpers for the end-to-end tests (sourced).
# Every test makes its files under one temporary directory and kills what it started.

set -euo pipefail

: "${LOOPBENCH:?run through meson test}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/loopbench-e2e-XXXXXX")
PIDS=()
fails=0

# Under `meson test --setup valgrind`, every loopbench the test runs runs under memcheck;
# its reports land in $TMP/valgrind.PID.log, and cleanup fails the test on any of them.
# valgrind is named by its full path: some tests run loopbench with an empty PATH.
# valgrind_wrapper WRAPPER BINARY SUPPRESSIONS: a script at WRAPPER that runs BINARY under
# memcheck.
valgrind_wrapper() {
  cat >"$1" <<EOF
#!/bin/sh
exec $(command -v valgrind) --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect \\
  --show-leak-kinds=definite,indirect --suppressions="$3" \\
  --log-file="$TMP/valgrind.%p.log" "$2" "\$@"
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

cleanup() {
  local pid left log
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
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
