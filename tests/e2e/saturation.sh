#!/usr/bin/env bash
# Duet saturation on real processes: two spinning refshards (idle wait 0) as a duet on the
# host's two CPUs have no idle time left between them, so their runs are flagged
# (runs[].saturated), warned about under the run's table and in the report's footnote,
# and compare's note says the comparison measured contention; an idle pair (idle wait 8)
# is not. Runs alone: it judges the CPU the targets got.
source "$(dirname "$0")/lib.sh"

if [ "$(nproc)" -lt 2 ]; then
  skip_test "a duet needs 2 CPUs, this host has $(nproc)"
fi
for v in base head; do
  mkdir -p "$TMP/$v"
  cp "$REFSHARD" "$SOURCE_ROOT/profiles/refshard.config.json" "$TMP/$v/"
done
duet() { # duet SETTING NAME: a round of base and head at once, each pinned to one of CPUs 0-1
  local rc=0
  "$LOOPBENCH" run "$SOURCE_ROOT/profiles/refshard-ci.json" -s "$1" -n 1 -w 0.5 -t 1.5 \
    --variant base="$TMP/base" --variant head="$TMP/head" --order duet --cpus 0-1 \
    -o "$TMP/$2" >"$TMP/$2.out" 2>&1 || rc=$?
  cat "$TMP/$2.out"
  check "$2: the campaign exits 0 and validates against the documented schema" bash -c "
    [ $rc -eq 0 ] && jq -e -f '$SOURCE_ROOT/tests/data/results-schema.jq' '$TMP/$2/results.json' >/dev/null"
  "$LOOPBENCH" report "$TMP/$2" --no-plots -o "$TMP/$2.md" >/dev/null 2>&1 || true
  "$LOOPBENCH" compare "$TMP/$2" >"$TMP/$2.compare.md" 2>/dev/null || true
  "$LOOPBENCH" compare "$TMP/$2" -f json >"$TMP/$2.compare.json" 2>/dev/null || true
}

# --- two spinning targets: each at its CPU's capacity, the host without idle time -----
duet 0 spin
res=$TMP/spin/results.json
check "spinning: every run records how busy its CPUs were" jq -e '
  all(.runs[]; .host_cpus.cpus == "0-1" and (.host_cpus.busy_percent | type == "number" and . > 0 and . <= 100.5))' "$res"
# Other processes that fill the CPUs take the targets' time and make the host's noise
# (its own warning), not a duet's saturation: on a loaded host there is nothing to judge.
if jq -e 'all(.runs[]; (.host_cpus.busy_percent // 0) - .host_cpus.others_percent >= 25)' "$res" >/dev/null; then
  check "spinning: both runs flagged saturated, with the reason" jq -e '
    [.runs[].saturated] | length == 2 and all(test("^(the target used [0-9]+% of its 1 CPU|its CPUs had no idle time|the host had no idle CPU: [0-9]+% busy over the window)"))' "$res"
  check "  ... warned about under the run's table" \
    grep -q '^warning: 2 of 2 runs at 0 saturated (the first: .*): their figures measured contention' "$TMP/spin.out"
  check "  ... in results.json's warnings" jq -e 'any(.warnings[]; test("2 of 2 runs at 0 saturated"))' "$res"
  check "  ... in the report's footnote" grep -q 'Warning: 2 of 2 runs at 0 saturated' "$TMP/spin.md"
  check "  ... and compare's note says the comparison measured contention" bash -c "
    grep -q 'runs at 0 saturated (the first: .*): the comparison measured contention' '$TMP/spin.compare.md' &&
    jq -s -e '.[0].rows | length > 0 and all(.[]; .saturated | test(\"^2 of 2 runs at 0 saturated\"))' '$TMP/spin.compare.json' >/dev/null"
else
  ok "skipped the spinning pair's flags: other processes left the targets under a quarter of the CPUs"
fi

# --- two idle targets: far from their capacity, the host idle between their wakes -----
duet 8 idle
res=$TMP/idle/results.json
check "idle: no run flagged" jq -e '[.runs[].saturated] == [null, null]' "$res"
check "  ... no word of saturation under the table, in the report or in compare's note" bash -c "
  ! grep -q saturated '$TMP/idle.out' '$TMP/idle.md' '$TMP/idle.compare.md' &&
  jq -s -e '.[0].rows | length > 0 and all(.[]; .saturated == null)' '$TMP/idle.compare.json' >/dev/null"
check "no target left" no_process_from "$TMP"
