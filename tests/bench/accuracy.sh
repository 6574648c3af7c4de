#!/usr/bin/env bash
# Benchmark: how exactly `loopbench sample --pid` reads a known CPU share.
#
# A burner holding 25% (then 5%) of one core is measured over a 5 s window, 5 times.
# Each error is the reading minus the share, in percentage points; the target is a
# median within 0.05 points. For comparison, what `ps -o time=` read before and after
# the same window would have said (one-second resolution). Prints figures; fails only
# if something crashed. Needs LOOPBENCH and BURNER (set by meson) and jq.
source "$(dirname "$0")/lib.sh"
WINDOW=5
RUNS=5

# ps prints CPU time as [[DD-]HH:]MM:SS.
ps_seconds() {
    ps -o time= -p "$1" | awk '{
        n = split($1, a, /[-:]/); s = 0
        if (n == 4) s = a[1] * 86400 + a[2] * 3600 + a[3] * 60 + a[4]
        else if (n == 3) s = a[1] * 3600 + a[2] * 60 + a[3]
        else s = a[1] * 60 + a[2]
        print s }'
}


for share in 0.25 0.05; do
    "$BURNER" --share "$share" --seconds 600 >/dev/null &
    burner=$!
    sleep 0.5
    want=$(awk -v s="$share" 'BEGIN { print s * 100 }')
    echo "burner at ${want}% of one core, ${WINDOW} s windows:"
    : >"$tmp/errors"
    : >"$tmp/ps_errors"
    for run in $(seq "$RUNS"); do
        ps_before=$(ps_seconds "$burner")
        t0=$(date +%s.%N)
        "$LOOPBENCH" sample --pid "$burner" --seconds "$WINDOW" --json >"$tmp/out"
        t1=$(date +%s.%N)
        ps_after=$(ps_seconds "$burner")
        got=$(jq .cpu_percent "$tmp/out")
        err=$(awk -v g="$got" -v w="$want" 'BEGIN { printf "%+.4f", g - w }')
        ps_pct=$(awk -v a="$ps_after" -v b="$ps_before" -v t0="$t0" -v t1="$t1" \
            'BEGIN { printf "%.1f", (a - b) * 100 / (t1 - t0) }')
        ps_err=$(awk -v g="$ps_pct" -v w="$want" 'BEGIN { printf "%+.1f", g - w }')
        source=$(jq -r .cpu_source "$tmp/out")
        echo "  run $run: loopbench ${got}% (error ${err} points, $source);" \
            "ps -o time= ${ps_pct}% (error ${ps_err} points)"
        awk -v e="$err" 'BEGIN { print (e < 0 ? -e : e) }' >>"$tmp/errors"
        awk -v e="$ps_err" 'BEGIN { print (e < 0 ? -e : e) }' >>"$tmp/ps_errors"
    done
    echo "  median |error|: loopbench $(median <"$tmp/errors") points (target 0.05)," \
        "ps -o time= $(median <"$tmp/ps_errors") points"
    kill -9 "$burner"
    wait "$burner" 2>/dev/null || true
    burner=
done
