#!/usr/bin/env bash
# The CPU % of a window against the truth, end to end: what the burner measured itself
# burning inside the window (tests/helpers/burner.c), through `loopbench run` under both
# CPU sources and through `loopbench sample --pid`. The burner runs directly, behind a
# shell, in threads that exit, in children that exit and are reaped, and in a
# double-forked grandchild. It idles, burns 1 s, then lingers; the window starts once it
# has said it started and ends after the burn, so the burner is idle at both edges
# (checked: the first and the last 100 ms point of the series read no CPU) and the truth
# does not depend on when exactly they were read. process-tree-clocks is checked against
# the burner's process clocks, perf-task-clock against its own task clock, the same
# kernel clock (the process clocks' figure is printed beside: on a VM a task clock also
# counts time stolen from the vCPU, docs/platforms.md).
#
# A case whose error is past the tolerance is measured once more, and that second
# measurement judged, the first printed beside it: in one of two runs of the test command
# on this VM (2026-12-05) two cases read 3-4 ms of CPU more than the burner counted between
# its burn's edges (+0.11 and +0.16 points over 2.4 s), while some 30 runs of this test
# alone read within 0.02; the bracket misses CPU the tree spent outside the burn, and a
# loopbench that read wrong would read wrong twice.
source "$(dirname "$0")/lib.sh"

# Points of one core: the worst error over 20 runs of this test and the sampler's unit
# tests under the sanitizers on a busy 2-vCPU VM was 0.037 (docs/platforms.md).
TOLERANCE=0.1
# The idle before the burn: loopbench must open its window within it of the burner's
# "started" line, which takes longer on a loaded machine and under valgrind; the window
# ends at least TAIL s after the burn.
LEAD=$([ -n "${LOOPBENCH_VALGRIND:-}" ] && echo 1.5 || echo 1)
TAIL=0.4
WINDOW=$(awk -v l="$LEAD" -v t="$TAIL" 'BEGIN { print l + 1 + t }')
BURN=(--delay "$LEAD" --seconds 1 --linger)
# /proc gives what a process reaped from its children (cutime, cstime) in USER_HZ ticks.
TICK_S=$(awk -v hz="$(getconf CLK_TCK)" 'BEGIN { print 1 / hz }')

# burned LOG FIELD: "LINES NS": the number of the burner's "burned" lines in LOG and the
# sum of their FIELD (cpu_ns or task_clock_ns).
burned() {
  awk -v f="$2=" '/^burner: burned / {
      n++; for (i = 3; i <= NF; i++) if (index($i, f) == 1) s += substr($i, length(f) + 1) }
    END { printf "%d %.0f\n", n, s }' "$1"
}

# judge WHAT SOURCE LOG LINES REAPS CPU_PERCENT WALL FIRST_POINT LAST_POINT [AGAIN]: the
# window held the burn and read what the burner's LINES lines in LOG say it burned, by the
# clock of SOURCE, within TOLERANCE; REAPS (yes/no): the tree reaps children in the
# window, whose time /proc gives truncated to a tick, twice (user and system). With AGAIN
# (yes), an error past the tolerance is printed and not judged: status 2, measure again.
judge() {
  local what=$1 source=$2 log=$3 lines=$4 reaps=$5 got=$6 wall=$7 first=$8 last=$9
  local again=${10:-no}
  local field=cpu_ns tol=$TOLERANCE
  [ "$source" = perf ] && field=task_clock_ns
  [ "$source" = tree ] && [ "$reaps" = yes ] &&
    tol=$(awk -v t="$tol" -v k="$TICK_S" -v w="$wall" 'BEGIN { print t + 100 * 2 * k / w }')
  local n ns cpu_n cpu_ns
  read -r n ns < <(burned "$log" "$field")
  read -r cpu_n cpu_ns < <(burned "$log" cpu_ns)
  local report
  report=$(awk -v g="$got" -v ns="$ns" -v c="$cpu_ns" -v w="$wall" -v t="$tol" -v s="$source" 'BEGIN {
      truth = ns / 1e9 / w * 100
      printf "loopbench %.4f%%, the burner %.4f%%: error %+.4f points, tolerance %.3f", g, truth, g - truth, t
      if (s == "perf") printf " (its process clocks: %.4f%%)", c / 1e9 / w * 100 }')
  local within=yes
  awk -v g="$got" -v ns="$ns" -v w="$wall" -v t="$tol" \
    'BEGIN { e = g - ns / 1e9 / w * 100; exit !(e <= t && e >= -t) }' || within=no
  if [ "$within" = no ] && [ "$again" = yes ]; then
    echo "  ($what: $report: measured again)"
    return 2
  fi
  check "$what: the window held the whole burn (first and last points ${first}%, ${last}%)" \
    awk -v a="$first" -v b="$last" 'BEGIN { exit !(a < 0.5 && b < 0.5) }'
  check "$what: $lines burned line(s) from the burner" [ "$n" -eq "$lines" ]
  check "$what: $report" [ "$within" = yes ]
}

# run_case NAME SOURCE LINES REAPS COMMAND...: a one-run campaign of COMMAND, ready when
# the burner says it started, sampled for WINDOW s under SOURCE; measured again once when
# its error is past the tolerance.
run_case() {
  measure_case yes "$@" || [ $? -ne 2 ] || measure_case no "$@"
}

# measure_case AGAIN NAME SOURCE LINES REAPS COMMAND...: run_case's one measurement, AGAIN
# as judge's.
measure_case() {
  local again=$1 name=$2 source=$3 lines=$4 reaps=$5
  shift 5
  local out=$TMP/$name-$source
  rm -rf "$out"
  jq -n --arg name "$name" --argjson command "$(printf '%s\n' "$@" | jq -R . | jq -s .)" \
    '{name: $name, command: $command, knob: {name: "unused", values: ["a"], env: "UNUSED"},
      ready: {log: "^burner: started", timeout: 10}, stop: {grace: 2}}' >"$TMP/$name.json"
  local rc=0
  "$LOOPBENCH" run "$TMP/$name.json" --cpu-source "$source" -n 1 -w 0 -t "$WINDOW" \
    --interval 100 -o "$out" -q >/dev/null 2>"$out.err" || rc=$?
  check "$name ($source): the run exits 0" [ "$rc" -eq 0 ]
  [ "$rc" -eq 0 ] || { cat "$out.err"; return; }
  local series=$out/$(jq -r '.runs[0].series' "$out/results.json")
  judge "$name ($source)" "$source" "$out/$(jq -r '.runs[0].stdout_log' "$out/results.json")" \
    "$lines" "$reaps" "$(jq '.runs[0].cpu_percent' "$out/results.json")" \
    "$(jq '.runs[0].wall_seconds' "$out/results.json")" \
    "$(awk -F, 'NR == 2 { print $2 }' "$series")" "$(tail -n 1 "$series" | cut -d, -f2)" "$again"
}

for source in perf tree; do
  run_case direct "$source" 1 no "$BURNER" --share 0.5 "${BURN[@]}"
  # sh stays the parent (it has work after the burner), so the burner is a grandchild.
  run_case wrapped "$source" 1 no sh -c "\"$BURNER\" --share 0.5 ${BURN[*]}; true"
  run_case threads "$source" 1 no "$BURNER" --threads 3 --share 0.3 "${BURN[@]}"
  run_case children "$source" 1 yes "$BURNER" --children 2 --share 0.4 "${BURN[@]}"
  # The burner reaps the grandchild's parent in the window.
  run_case double-fork "$source" 2 yes "$BURNER" --double-fork --share 0.5 "${BURN[@]}"
  check "no process left after the $source cases" no_process_from "$TMP"
done

# sample --pid: a burner started apart, read by its process clocks; measured again once
# when its error is past the tolerance.
sample_case() {
  measure_sample yes "$@" || [ $? -ne 2 ] || measure_sample no "$@"
}

measure_sample() {
  local again=$1 name=$2
  shift 2
  local log=$TMP/sample-$name.log
  "$@" >"$log" &
  local pid=$!
  PIDS+=("$pid")
  for _ in $(seq 200); do grep -q '^burner: started' "$log" && break; sleep 0.02; done
  local rc=0
  "$LOOPBENCH" sample --pid "$pid" --seconds "$WINDOW" --interval 100 --json \
    >"$TMP/sample-$name.json" 2>"$TMP/sample-$name.err" || rc=$?
  kill -TERM "$pid"
  wait "$pid" || true
  check "sample --pid $name: exits 0" [ "$rc" -eq 0 ]
  [ "$rc" -eq 0 ] || { cat "$TMP/sample-$name.err"; return; }
  local j=$TMP/sample-$name.json
  judge "sample --pid $name" tree "$log" 1 no "$(jq .cpu_percent "$j")" \
    "$(jq .wall_seconds "$j")" "$(jq '.series[0].cpu_percent' "$j")" \
    "$(jq '.series[-1].cpu_percent' "$j")" "$again"
}
sample_case direct "$BURNER" --share 0.5 "${BURN[@]}"
sample_case threads "$BURNER" --threads 3 --share 0.3 "${BURN[@]}"

[ "$fails" -eq 0 ]
