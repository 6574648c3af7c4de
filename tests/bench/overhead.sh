#!/usr/bin/env bash
# Benchmark: what `loopbench sample` itself costs while it measures.
#
# loopbench's own CPU during a 10 s window on a 25% burner, as a share of one core, at
# the default 1000 ms interval and at 100 ms, 3 runs each (the target at 1000 ms is
# under 0.05%). Its whole-process CPU (start-up and output included) and peak RSS are
# shown beside. Prints figures; fails only if something crashed. Needs LOOPBENCH and
# BURNER (set by meson) and jq.
source "$(dirname "$0")/lib.sh"
WINDOW=10
RUNS=3

"$BURNER" --share 0.25 --seconds 600 >/dev/null &
burner=$!
sleep 0.5
for interval in 1000 100; do
    echo "loopbench sample, ${WINDOW} s window at ${interval} ms:"
    : >"$tmp/shares"
    for run in $(seq "$RUNS"); do
        "$LOOPBENCH" sample --pid "$burner" --seconds "$WINDOW" --interval "$interval" \
            --json >"$tmp/out"
        jq -r '[.loopbench_window_cpu_seconds * 100 / .wall_seconds,
                .loopbench_window_cpu_seconds, .loopbench_cpu_seconds,
                .loopbench_max_rss_kib] | map(tostring) | join(" ")' "$tmp/out" >"$tmp/fields"
        read -r share window_s all_s rss <"$tmp/fields"
        printf '  run %d: %.4f%% of one core (%.2f ms in the window; %.2f ms in all;' "$run" \
            "$share" "$(awk -v s="$window_s" 'BEGIN { print s * 1000 }')" \
            "$(awk -v s="$all_s" 'BEGIN { print s * 1000 }')"
        printf ' max RSS %s KiB)\n' "$rss"
        echo "$share" >>"$tmp/shares"
    done
    printf '  median: %.4f%% of one core%s\n' "$(median <"$tmp/shares")" \
        "$([ "$interval" -eq 1000 ] && echo ' (target under 0.05%)')"
done
