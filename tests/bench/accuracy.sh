#!/usr/bin/env bash
# Benchmark: how exactly `loopbench sample --pid` reads a known CPU use.
#
# A burner burning 25% (then 5%) of one core is measured over a 5 s window, 5 times. The
# burner sleeps 0.5 s, burns 4 s, then sleeps until stopped, and says what it used from
# just before one sleep to just before the other by its own clocks (its "slept" line,
# tests/helpers/burner.c): the window, started once it has started, holds the whole burn
# with the burner asleep at both edges. Each error is the reading minus that truth, in
# percentage points; the target is a median within 0.05 points. Prints figures; fails
# only if something crashed. Needs LOOPBENCH and BURNER (set by meson) and jq.
source "$(dirname "$0")/lib.sh"
WINDOW=5
RUNS=5

for share in 0.25 0.05; do
    want=$(awk -v s="$share" 'BEGIN { print s * 100 }')
    echo "burner at ${want}% of one core, ${WINDOW} s windows:"
    : >"$tmp/errors"
    for run in $(seq "$RUNS"); do
        "$BURNER" --share "$share" --delay 0.5 --seconds $((WINDOW - 1)) --linger >"$tmp/burner.log" &
        burner=$!
        for _ in $(seq 200); do grep -q '^burner: started' "$tmp/burner.log" && break; sleep 0.02; done
        "$LOOPBENCH" sample --pid "$burner" --seconds "$WINDOW" --json >"$tmp/out"
        kill "$burner"
        wait "$burner" || true
        burner=
        got=$(jq .cpu_percent "$tmp/out")
        truth=$(awk -v w="$(jq .wall_seconds "$tmp/out")" '/^burner: slept / {
            split($3, c, "="); printf "%.6f", c[2] / 1e9 / w * 100 }' "$tmp/burner.log")
        err=$(awk -v g="$got" -v t="$truth" 'BEGIN { printf "%+.4f", g - t }')
        source=$(jq -r .cpu_source "$tmp/out")
        echo "  run $run: the burner used ${truth}%, loopbench read ${got}%" \
            "(error ${err} points, $source)"
        awk -v e="$err" 'BEGIN { print (e < 0 ? -e : e + 0) }' >>"$tmp/errors"
    done
    echo "  median |error|: $(median <"$tmp/errors") points (target 0.05)"
done
