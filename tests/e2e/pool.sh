#!/usr/bin/env bash
# compare --pool on real campaigns: three two-variant campaigns of refshard made as three
# "hosts" (pinned to CPU 0, to CPU 1, unpinned), head a refshard doing more work per wheel
# turn (refshard.workPerTickUs in its variant's config file, no rebuild); then an A/A pool
# of three. Short campaigns: one setting, 3 rounds, 1.5 s windows; the three "hosts" of a
# pool run at once (a config file is one campaign's at a time: each host has its own).
source "$(dirname "$0")/lib.sh"

cp "$SOURCE_ROOT/profiles/refshard-ci.json" "$TMP/profile.json"
for name in ab1 ab2 ab3 aa1 aa2 aa3; do
  for v in base head; do
    mkdir -p "$TMP/$name-$v"
    ln -s "$BUILD_ROOT/refshard" "$TMP/$name-$v/refshard"
    cp "$SOURCE_ROOT/profiles/refshard.config.json" "$TMP/$name-$v/"
  done
done
# 40 us of the loop thread's CPU per wheel turn (125 a second): about +0.5% of a core
# over idle wait 2's ~0.9%, a change of roughly 1.5x
for name in ab1 ab2 ab3; do
  jq '.settings["refshard.workPerTickUs"] = "40"' "$SOURCE_ROOT/profiles/refshard.config.json" \
    >"$TMP/$name-head/refshard.config.json"
done

# campaign NAME [run options]: NAME-base against NAME-head, as one host would run it
campaign() {
  local name=$1
  shift
  (cd "$TMP" && "$LOOPBENCH" run profile.json -s 2 -n 3 -w 0.5 -t 1.5 --variant base="$name-base" \
    --variant head="$name-head" -o "$TMP/$name" -q "$@") >"$TMP/$name.log" 2>&1
}
pin0=() pin1=()
if [ "$(nproc)" -ge 2 ]; then pin0=(--cpus 0) pin1=(--cpus 1); fi
started=$SECONDS
campaign ab1 "${pin0[@]}" &
campaign ab2 "${pin1[@]}" &
campaign ab3 &
wait

for d in ab1 ab2 ab3; do
  echo "--- compare $d alone"
  "$LOOPBENCH" compare "$TMP/$d" --metric cpu 2>&1 | grep -E '^\| 2 head' || true
done
rc=0
"$LOOPBENCH" compare --pool "$TMP/ab1" "$TMP/ab2" "$TMP/ab3" --metric cpu >"$TMP/pool.md" \
  2>"$TMP/pool.err" || rc=$?
cat "$TMP/pool.md" "$TMP/pool.err"
"$LOOPBENCH" compare --pool "$TMP/ab1" "$TMP/ab2" "$TMP/ab3" --metric cpu --format json \
  >"$TMP/pool.json" 2>/dev/null || true
check "pooled: a row per host, the pooled row and a prediction for a new host" bash -c "
  [ \$(grep -c '^| .* | 3 | ' '$TMP/pool.md') -ge 3 ] && grep -q '^| \*\*pooled\*\* (3 hosts)' '$TMP/pool.md' &&
  grep -q '^| a new host (90% prediction)' '$TMP/pool.md' && grep -q '^xychart-beta horizontal' '$TMP/pool.md'"
check "the pooled change of CPU is above 0 (head does more work), from 3 hosts" jq -e '
  .campaigns == 3 and (.rows[] | select(.metric == "cpu") | .change > 0 and .hosts == 3
  and (.per_host | length) == 3 and (.prediction | length) == 2 and .tau >= 0)' "$TMP/pool.json"
check "exit status as compare: 1 when regressed, else 0" bash -c "
  v=\$(jq -r .verdict '$TMP/pool.json'); [ \"\$v\" = regressed ] && [ $rc -eq 1 ] || { [ \"\$v\" != regressed ] && [ $rc -eq 0 ]; }"

# One DIR: the pool is compare DIR
"$LOOPBENCH" compare "$TMP/ab1" --format json >"$TMP/one.json" 2>/dev/null || true
"$LOOPBENCH" compare --pool "$TMP/ab1" --format json >"$TMP/pool1.json" 2>/dev/null || true
check "one DIR: the same verdicts, changes and intervals as compare DIR" bash -c "
  diff <(jq -c '[.verdict, (.rows[] | [.setting, .variant, .metric, .verdict, .change, .ci, .p_adjusted])]' '$TMP/one.json') \
       <(jq -c '[.verdict, (.rows[] | [.setting, .variant, .metric, .verdict, .change, .ci, .p_adjusted])]' '$TMP/pool1.json')"

# An A/A pool of three: not regressed
campaign aa1 "${pin0[@]}" &
campaign aa2 "${pin1[@]}" &
campaign aa3 &
wait
echo "campaigns: $((SECONDS - started)) s"
rc=0
"$LOOPBENCH" compare --pool "$TMP/aa1" "$TMP/aa2" "$TMP/aa3" >"$TMP/aa.md" 2>&1 || rc=$?
head -20 "$TMP/aa.md"
check "an A/A pool of three campaigns is not regressed (exit 0)" bash -c "
  [ $rc -eq 0 ] && ! grep -q '^### loopbench compare --pool: regressed' '$TMP/aa.md'"

# The pinned campaigns record metrics the unpinned one does not (the idle states of their
# CPUs, where the host has a cpuidle driver): each pooled row holds each campaign's own row
# of that metric, or null where the campaign has none, never another metric's
"$LOOPBENCH" compare --pool "$TMP/aa1" "$TMP/aa2" "$TMP/aa3" --format json >"$TMP/aa.json" 2>/dev/null || true
for d in aa1 aa2 aa3; do "$LOOPBENCH" compare "$TMP/$d" --format json >"$TMP/$d.json" 2>/dev/null || true; done
check "the pool matches rows by what they compare: each host's own, null where it has none" python3 -c "
import json, sys
pool = json.load(open(sys.argv[1]))
own = [{(r['setting'], r.get('variant'), r['metric']): r for r in json.load(open(f))['rows']} for f in sys.argv[2:]]
ok = len(pool['rows']) > 0
for row in pool['rows']:
    key = (row['setting'], row.get('variant'), row['metric'])
    for h, mine in zip(row['per_host'], own):
        ok &= (h is None) == (key not in mine) and (h is None or h['change'] == mine[key]['change'])
sys.exit(not ok)" "$TMP/aa.json" "$TMP/aa1.json" "$TMP/aa2.json" "$TMP/aa3.json"

# Campaigns that differ are refused, naming the first difference
sed 's/"head"/"other"/g' "$TMP/aa3/results.json" >"$TMP/renamed.json"
rc=0
"$LOOPBENCH" compare --pool "$TMP/aa1" "$TMP/renamed.json" >/dev/null 2>"$TMP/renamed.err" || rc=$?
cat "$TMP/renamed.err"
check "a campaign of other variant names refused (exit 2), naming it" bash -c "
  [ $rc -eq 2 ] && grep -q \"variant 'head' as its variant number 2 where .* has 'other'\" '$TMP/renamed.err'"
