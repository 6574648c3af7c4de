#!/usr/bin/env bash
# loopbench history on a real kept history: nine short refshard campaigns run from a git
# repository this test makes (refshard, its config and a profile, committed), the last
# four after a commit that raises refshard.workPerTickUs (docs/refshard.md) so that the
# CPU at idle wait 2 steps up some 30x. history finds the step at the sixth campaign,
# names the commits between the fifth and the sixth (what run recorded from the
# repository) and exits 1. Copies of the first five whose only change is a hand-edited kernel from the
# third on get an environment change point there, and exit 0. A step of 30x is one no
# load on the host can hide or fake.
source "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null; then
  skip_test "no git"
fi

repo=$TMP/repo
mkdir "$repo"
cp "$REFSHARD" "$repo/refshard"
cp "$SOURCE_ROOT/profiles/refshard.config.json" "$repo/"
jq '.command[0] = "./refshard"' "$SOURCE_ROOT/profiles/refshard.json" >"$repo/profile.json"
# (git -C: a test whose working directory is in $TMP would count as a process left behind)
g() { git -C "$repo" -c user.name=loopbench-test -c user.email=test@loopbench.invalid "$@"; }
g init -q
g add -A
g commit -q -m "refshard at rest"

hist=$TMP/hist
mkdir "$hist"
campaign() { # campaign NAME: one short campaign at idle wait 2 from the repository
  "$LOOPBENCH" run "$repo/profile.json" -s 2 -n 2 -t 1 -w 0.5 -q -o "$hist/$1" >/dev/null
}
for i in 1 2 3; do campaign "0$i"; done
echo "a note" >"$repo/NOTES"
g add NOTES
g commit -q -m "a note, no change to refshard"
before=$(g rev-parse HEAD)

for i in 4 5; do campaign "0$i"; done
jq '.settings["refshard.workPerTickUs"] = "2000"' "$repo/refshard.config.json" >"$TMP/config"
mv "$TMP/config" "$repo/refshard.config.json"
g commit -q -am "refshard does 2 ms of work per wheel turn"
after=$(g rev-parse HEAD)

for i in 6 7 8 9; do campaign "0$i"; done
check "the repository's tree is clean after the campaigns (the config restored)" \
  [ -z "$(g status --porcelain)" ]

rc=0
GITHUB_STEP_SUMMARY=$TMP/summary.md "$LOOPBENCH" history "$hist" --metric cpu \
  >"$TMP/h.md" 2>"$TMP/h.err" || rc=$?
cat "$TMP/h.md" "$TMP/h.err"
check "a step up in the newest campaigns: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "  ... found at the sixth campaign, the first after the commit" \
  grep -Eq '^\| CPU at idle wait \(ms\) 2 \| `06` \(6 of 9\) \|.*\*\*regressed\*\*, fails \|$' "$TMP/h.md"
check "  ... naming the commits between the fifth campaign and the sixth" \
  grep -q "^| CPU at idle wait (ms) 2 | \`06\` .* | \`${before:0:7}\` \.\. \`${after:0:7}\` | " "$TMP/h.md"
check "  ... a chart of the series with its segments' means" \
  grep -q '^    line "its segment.s mean"' "$TMP/h.md"
check "  ... the same Markdown appended to \$GITHUB_STEP_SUMMARY" cmp -s "$TMP/h.md" "$TMP/summary.md"
rc=0
"$LOOPBENCH" history "$hist" --metric cpu --json >"$TMP/h.json" || rc=$?
check "--json: exit 1 too (got $rc)" [ "$rc" -eq 1 ]
check "  ... JSON: one change point, of the target, at campaign index 5, worse, +1000% or more" \
  jq -e '[.series[] | select(.setting == "2" and .metric == "cpu")][0] |
    (.change_points | length) == 1 and .change_points[0].campaign == 5 and
    .change_points[0].kind == "target" and .change_points[0].worse and
    .change_points[0].relative > 10 and .fails and
    .change_points[0].last_before == {"sha": $before, "dirty": false} and
    .change_points[0].first_after == {"sha": $after, "dirty": false}' \
    --arg before "$before" --arg after "$after" "$TMP/h.json"

# A campaign that recorded no commit says so.
mkdir "$TMP/nocommit"
for i in 1 2 3 4 5 6 7 8 9; do
  cp -r "$hist/0$i" "$TMP/nocommit/0$i"
  touch "$TMP/nocommit/0$i/.handmade"
done
jq 'del(.campaign.commit)' "$hist/05/results.json" >"$TMP/nocommit/05/results.json"
"$LOOPBENCH" history "$TMP/nocommit" --metric cpu >"$TMP/n.md" 2>&1 || true
check "a campaign without a commit: 'none recorded'" \
  grep -q "^| CPU at idle wait (ms) 2 | \`06\` .* | none recorded \.\. \`${after:0:7}\` | " "$TMP/n.md"

# The same host on "another kernel" from the third campaign on, and no other change.
env=$TMP/env
mkdir "$env"
for i in 1 2 3 4 5; do
  cp -r "$hist/0$i" "$env/0$i"
  touch "$env/0$i/.handmade"
  if [ "$i" -ge 3 ]; then
    jq '.host.kernel = "9.9.9-test"' "$hist/0$i/results.json" >"$env/0$i/results.json"
  fi
done
rc=0
"$LOOPBENCH" history "$env" --metric cpu >"$TMP/e.md" 2>"$TMP/e.err" || rc=$?
cat "$TMP/e.md" "$TMP/e.err"
check "only the kernel changed: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "  ... an environment change point at the third campaign, naming the kernel" \
  grep -Eq '^\| CPU at idle wait \(ms\) 2 \| `03` \(3 of 5\) \|.*\| environment: kernel \|$' "$TMP/e.md"

# Bad input: exit 2, one line naming what is wrong.
mkdir "$TMP/empty"
rc=0
"$LOOPBENCH" history "$TMP/empty" 2>"$TMP/bad.err" || rc=$?
check "a directory without campaigns: exit 2" [ "$rc" -eq 2 ]
check "  ... naming it" grep -q "'$TMP/empty' holds no results.json" "$TMP/bad.err"
rc=0
"$LOOPBENCH" history "$hist" --metric nosuchkey 2>/dev/null || rc=$?
check "an unknown --metric: exit 2" [ "$rc" -eq 2 ]
rc=0
"$LOOPBENCH" history "$hist" --min-segment 1 2>/dev/null || rc=$?
check "--min-segment 1: exit 2" [ "$rc" -eq 2 ]
check "no refshard left" no_process_from "$TMP"
