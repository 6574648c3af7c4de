# Shared set-up for the benchmarks (sourced): the binaries meson passes, a temporary
# directory removed at exit, the burner they measure killed at exit, and a median.
set -euo pipefail

: "${LOOPBENCH:?set LOOPBENCH to the loopbench binary}"
: "${BURNER:?set BURNER to the burner binary}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopbench-bench-XXXXXX")
burner=
cleanup() {
    [ -z "$burner" ] || kill -9 "$burner" 2>/dev/null || true
    pkill -9 -f "$tmp" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

# median: of the numbers on stdin, one per line.
median() {
    sort -g | awk '{ v[NR] = $1 }
        END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
