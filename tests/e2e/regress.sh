#!/usr/bin/env bash
# The CI regression job (harness/ci/regress.sh) on a real change, in a temporary clone of
# this repository: a branch that makes refshard burn more CPU per tick (a default of its
# build, not of the profile) fails the job with 1; a branch that changes only a comment
# passes it with 0. The job builds refshard at the merge base and at the branch, runs them as
# the variants of one campaign and gates with `loopbench compare DIR` (loopbench is the
# build under test, so the clone builds only refshard). gate0 is the shard of a matrix: the
# CPU branch under GATE=0 and a SEED exits 0, its campaign and report made, no gate.
#
#   regress.sh cpu | comment | gate0        (meson registers one test per case)
source "$(dirname "$0")/lib.sh"

case=${1:?cpu, comment or gate0}
if ! command -v git >/dev/null || ! git -C "$SOURCE_ROOT" rev-parse -q --verify HEAD >/dev/null 2>&1; then
  skip_test "the source tree is not a git repository"
fi

repo=$TMP/repo
git clone -q "$(git -C "$SOURCE_ROOT" rev-parse --absolute-git-dir)" "$repo"
# (git -C: a test whose working directory is in $TMP would count as a process left behind)
g() { git -C "$repo" -c user.name=loopbench-test -c user.email=test@loopbench.invalid "$@"; }
settings=$repo/harness/refshard/settings.c
case "$case" in
  cpu | gate0)
    # refshard.workPerTickUs defaults to 2000 us per wheel turn (125 a second): about 25% of
    # a core against under 1% at idle wait 2, some 30x.
    g checkout -q -b more-cpu
    sed -i 's/{"refshard.workPerTickUs", "0",/{"refshard.workPerTickUs", "2000",/' "$settings"
    expect=1
    # A shard of a matrix: a regression is the pooled job's to call.
    if [ "$case" = gate0 ]; then expect=0 gate=0 seed=4242; fi
    ;;
  comment)
    g checkout -q -b comment-only
    sed -i '1i /* A comment, and nothing else: the CI job must pass this branch. */' "$settings"
    expect=0
    # An A/A gate fails with a chance of alpha by design (tests/bench/calibrate.c measures
    # it); at the job's 0.05 this test would fail one CI run in twenty or more on a loaded
    # host (it did: peak lag 1 -> 4 ms in 3 of 3 rounds). At 0.01 it checks the job's
    # plumbing on an unchanged build and fails for nothing at most one run in a hundred.
    compare_args="--alpha 0.01"
    ;;
  *) echo "unknown case $case"; exit 2 ;;
esac
check "the branch changes harness/refshard/settings.c" bash -c "! git -C '$repo' diff --quiet"
g commit -q -m "$case" -- harness/refshard/settings.c

# The job, as CI runs it, on 1 setting, 3 rounds of short windows.
summary=$TMP/summary.md
: >"$summary"
mkdir "$TMP/tmp"
rc=0
TMPDIR=$TMP/tmp TARGET_REPO=$repo LOOPBENCH=$LOOPBENCH OUT=$TMP/out GITHUB_STEP_SUMMARY=$summary \
  COMPARE_ARGS=${compare_args:-} GATE=${gate:-} SEED=${seed:-} \
  PROFILE=$SOURCE_ROOT/profiles/refshard-ci.json \
  bash "$SOURCE_ROOT/harness/ci/regress.sh" -- -s 2 -n 3 -w 0.5 -t 1.5 -q \
  >"$TMP/job.out" 2>"$TMP/job.err" || rc=$?
cat "$TMP/job.out" "$TMP/job.err"

res=$TMP/out/results.json
check "regress.sh exits $expect (got $rc)" [ "$rc" -eq "$expect" ]
check "base is the merge base with origin/main, head the branch" \
  grep -q "^==> base: $(g rev-parse --short HEAD~1) .*(the merge base with origin/main)" "$TMP/job.err"
check "one campaign of base and head as variants, 3 rounds of each" jq -e '
  (.campaign.variants | map(.name)) == ["base", "head"] and
  ([.runs[] | select(.status == "ok") | "\(.variant) \(.repeat)"] | sort) ==
  ["base 1", "base 2", "base 3", "head 1", "head 2", "head 3"]' "$res"
if [ "$(nproc)" -ge 2 ]; then
  check "  ... run as a duet, base and head at once on CPUs of their own" jq -e '
    .campaign.order == "duet" and
    ([.runs | group_by(.repeat)[] | map(.cpus) | sort] | unique) == [["0", "1"]]' "$res"
fi
if [ -n "${seed:-}" ]; then
  check "  ... run with the shard's seed" jq -e ".campaign.seed == $seed" "$res"
fi
if [ "$case" != comment ]; then
  check "  ... head's refshard burnt 5x base's CPU or more, in every round" jq -e '
    [range(1; 4) as $r | [.runs[] | select(.repeat == $r)] | (map(select(.variant == "head"))[0].cpu_percent
      / map(select(.variant == "base"))[0].cpu_percent)] | min > 5' "$res"
fi
if [ "$case" = cpu ]; then
  check "  ... the step summary's CPU row says regressed" grep -Eq '^\| 2 (head )?\| CPU % \|.*\| \*\*regressed\*\*' "$summary"
elif [ "$case" = gate0 ]; then
  check "  ... not gated: no verdict table in the step summary nor on the terminal" \
    bash -c "! grep -q '| verdict |' '$summary' '$TMP/job.out'"
  check "  ... the step summary says so" grep -q 'not gated here (GATE=0)' "$summary"
else
  check "  ... the step summary has no regression" bash -c "! grep -q '\*\*regressed\*\*' '$summary'"
fi
check "the report is written" test -s "$TMP/out/report.md"
check "the step summary names head and base" \
  grep -q "^loopbench regression job: head \`$(g rev-parse --short HEAD)\` against base \`$(g rev-parse --short HEAD~1)\`" "$summary"
check "no worktree left in the clone" [ "$(g worktree list | wc -l)" -eq 1 ]
check "no work directory left" [ -z "$(ls -A "$TMP/tmp")" ]
check "the clone's tree is clean" [ -z "$(g status --porcelain)" ]
check "no refshard left" no_process_from "$TMP"
