#!/usr/bin/env bash
# The CI regression job tried again and again (issue 24, docs/ci.md "How often the job calls
# a change"): TRIES runs of harness/ci/regress.sh with its defaults, on a temporary clone of
# this repository whose head branch changes refshard:
#   work10    refshard.workPerTickUs 0 -> 10: 10 us more work per wheel turn (about 1.2x the
#             CPU at idle wait 2)
#   comment   a comment and nothing else (A/A: the job must pass it)
# Each try builds both refs afresh, as the job does. Prints a line per try (regress.sh's exit
# status, the rounds run, head/base's CPU at each setting as the median of the per-round
# ratios) and how many tries the job called regressed.
#
#   bash harness/ci/regress-trials.sh CASE [TRIES] [-- RUN OPTIONS...]
#
# LOOPBENCH names the loopbench to run (default: regress.sh builds one); each try's campaign
# stays in the directory printed at the end.
set -euo pipefail
case=${1:?work10 or comment}
tries=${2:-10}
shift $(($# < 2 ? $# : 2))
[ "${1:-}" != "--" ] || shift
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/loopbench-regress-trials-XXXXXX")
repo=$work/repo
git clone -q "$(git -C "$root" rev-parse --absolute-git-dir)" "$repo"
g() { git -C "$repo" -c user.name=loopbench-trials -c user.email=trials@loopbench.invalid "$@"; }
settings=harness/refshard/settings.c
g checkout -q -b "trial-$case"
case $case in
  work10) sed -i 's/{"refshard.workPerTickUs", "0",/{"refshard.workPerTickUs", "10",/' "$repo/$settings" ;;
  comment) sed -i '1i /* A comment, and nothing else. */' "$repo/$settings" ;;
  *) echo "regress-trials.sh: unknown case '$case' (expected work10 or comment)" >&2; exit 2 ;;
esac
! g diff --quiet || { echo "regress-trials.sh: the change did not apply to $settings" >&2; exit 2; }
g commit -q -m "$case" -- "$settings"

printf '%-4s %-5s %-7s %s\n' try exit rounds "head/base CPU by setting"
called=0
for k in $(seq "$tries"); do
  rc=0
  TARGET_REPO=$repo HEAD_REF="trial-$case" BASE_REF=HEAD~1 OUT=$work/try-$k \
    WORK=$work/build-$k bash "$root/harness/ci/regress.sh" -- -q "$@" \
    >"$work/try-$k.log" 2>&1 || rc=$?
  rm -rf "$work/build-$k"
  [ "$rc" -ne 1 ] || called=$((called + 1))
  res=$work/try-$k/results.json
  if [ -f "$res" ]; then
    rounds=$(jq '[.runs[].repeat] | max' "$res")
    ratios=$(jq -r '[.runs | group_by(.setting)[] | {s: .[0].setting, r: ([group_by(.repeat)[] |
        (map(select(.variant == "head"))[0].cpu_percent / map(select(.variant == "base"))[0].cpu_percent)]
        | sort | .[length / 2 | floor])}] | map("\(.s): \(.r * 1000 | round / 1000)") | join(", ")' "$res")
  else
    rounds=-; ratios="(no campaign: $work/try-$k.log)"
  fi
  printf '%-4s %-5s %-7s %s\n' "$k" "$rc" "$rounds" "$ratios"
done
echo "called regressed: $called of $tries ($case)"
echo "campaigns: $work"
