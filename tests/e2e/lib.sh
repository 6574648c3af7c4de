# Shared helpers for the end-to-end tests (sourced).
# Every test makes its files under one temporary directory and kills what it started.

set -euo pipefail

: "${LOOPBENCH:?run through meson test}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/loopbench-e2e-XXXXXX")
PIDS=()
fails=0

cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  # Anything still running from this test's directory is an orphan: kill it, and fail.
  if pgrep -f "$TMP" >/dev/null 2>&1; then
    echo "FAIL: processes left behind:"; pgrep -af "$TMP" || true
    pkill -9 -f "$TMP" 2>/dev/null || true
    fails=$((fails + 1))
  fi
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

# no_process_from DIR: nothing runs whose command line names DIR.
no_process_from() { ! pgrep -f "$1" >/dev/null 2>&1; }

# float comparisons with awk: lt A B, gt A B
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
between() { gt "$1" "$2" && lt "$1" "$3"; } # between X LOW HIGH, exclusive
