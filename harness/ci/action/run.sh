#!/usr/bin/env bash
# The Action's regression step (action.yml): its inputs (the LB_* variables action.yml
# maps them to) become harness/ci/regress.sh's environment and run options, the job runs
# on the workspace's repository, and the step's outputs are written however it ends. The
# step itself succeeds: the Action's last step fails with the exit code, once the publish
# step had its turn.
#
# Outputs: exit-code (regress.sh's: 0 no regression or, ungated, the campaign made; 1
# regressed; 2 nothing gated; 3 inconclusive with --fail-on inconclusive), verdict (the
# gate's worst over its rows as compare's JSON names it: regressed, improved, no change,
# inconclusive; "not gated" with gate false; "error" on exit 2), campaign, results and
# report (absolute paths; the last two empty when the file was not written).
set -uo pipefail

rc=0
gate=
case "${LB_GATE:-true}" in
  true) gate=1 ;;
  false) gate=0 ;;
  *) printf 'loopbench action: input gate: '\''%s'\'': expected true or false\n' "$LB_GATE" >&2; rc=2 ;;
esac
# Each input one argument: values reach loopbench as they are, never through a shell.
run_args=()
if [ -n "${LB_SETTINGS:-}" ]; then run_args+=(--settings "$LB_SETTINGS"); fi
if [ -n "${LB_ROUNDS:-}" ]; then run_args+=(--repeat "$LB_ROUNDS"); fi
if [ -n "${LB_WARMUP:-}" ]; then run_args+=(--warmup "$LB_WARMUP"); fi
if [ -n "${LB_WINDOW:-}" ]; then run_args+=(--sample "$LB_WINDOW"); fi
out=$(realpath -m "${LB_OUT:-$RUNNER_TEMP/loopbench-campaign}")

if [ "$rc" -eq 0 ]; then
  TARGET_REPO=$GITHUB_WORKSPACE PROFILE=${LB_PROFILE:-} BUILD_CMD=${LB_BUILD_COMMAND:-} \
    COMPARE_ARGS=${LB_COMPARE_ARGS:-} GATE=$gate SEED=${LB_SEED:-} OUT=$out LOOPBENCH=$LOOPBENCH \
    bash "$GITHUB_ACTION_PATH/harness/ci/regress.sh" -- "${run_args[@]}" || rc=$?
fi

if [ "$rc" -eq 2 ]; then
  verdict=error
elif [ "$gate" = 0 ]; then
  verdict="not gated"
else
  # The verdict table is already in the summary: compare again for the verdict alone (its
  # exit status is rc, known).
  # shellcheck disable=SC2086 # a list of options, split on purpose, as regress.sh does
  verdict=$({ env -u GITHUB_STEP_SUMMARY "$LOOPBENCH" compare "$out" -f json ${LB_COMPARE_ARGS:-} ||
    true; } | jq -r '.verdict // empty')
  verdict=${verdict:-error}
fi
results='' report=''
if [ -f "$out/results.json" ]; then results=$out/results.json; fi
if [ -f "$out/report.md" ]; then report=$out/report.md; fi
{
  printf 'exit-code=%s\nverdict=%s\ncampaign=%s\n' "$rc" "$verdict" "$out"
  printf 'results=%s\nreport=%s\n' "$results" "$report"
} >>"$GITHUB_OUTPUT"
printf '\nloopbench %s: **%s** (exit code %s); the campaign: %s.\n' "${LB_VERSION:-}" "$verdict" \
  "$rc" "\`$out\`" >>"$GITHUB_STEP_SUMMARY"
echo "loopbench action: $verdict (exit code $rc)"
