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
if [ -n "${LOOPBENCH_VALGRIND:-}" ]; then
  cat >"$TMP/loopbench-valgrind" <<EOF
#!/bin/sh
exec $(command -v valgrind) --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect \\
  --show-leak-kinds=definite,indirect --suppressions="$SOURCE_ROOT/tests/data/valgrind.supp" \\
  --log-file="$TMP/valgrind.%p.log" "$LOOPBENCH" "\$@"
EOF
  chmod +x "$TMP/loopbench-valgrind"
  LOOPBENCH=$TMP/loopbench-valgrind
fi

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
