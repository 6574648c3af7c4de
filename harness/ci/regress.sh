#!/usr/bin/env bash
# The CI regression job: build loopbench, run a campaign of a profile, write its report,
# compare it with the baseline kept in results/baselines/, and exit with compare's status
# (0 no regression, 1 regression, 2 bad input). docs/ci.md explains it.
#
#   bash harness/ci/regress.sh [PROFILE] [-- RUN OPTIONS...]
#
# Environment (all optional):
#   BASELINE       baseline result directory (default results/baselines/<profile name>)
#   OUT            where this campaign goes (default results/ci-<UTC time>)
#   COMPARE_ARGS   extra options for loopbench compare, e.g. "--max-increase 15 --fail-on inconclusive"
#   BUILD_DIR      meson build directory (default build-ci)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

say() { printf '==> %s\n' "$*" >&2; }

profile=profiles/refshard.json
if [ $# -gt 0 ] && [ "$1" != "--" ]; then profile=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" = "--" ]; then shift; fi
run_args=("$@")

build=${BUILD_DIR:-build-ci}
if [ -f "$build/build.ninja" ]; then
  say "building loopbench in $build"
else
  say "configuring $build"
  meson setup "$build" -Dtests=false >/dev/null
fi
ninja -C "$build" >/dev/null
lb=$build/loopbench

name=$(jq -r '.name // empty' "$profile")
[ -n "$name" ] || name=$(basename "$profile" .json)
baseline=${BASELINE:-results/baselines/$name}
out=${OUT:-results/ci-$(date -u +%Y%m%dT%H%M%SZ)}

say "campaign of $profile into $out"
"$lb" run "$profile" -o "$out" "${run_args[@]}"
say "report: $out/report.md"
# A report that fails (a plot, say) must not hide the verdict: compare still runs.
"$lb" report "$out" >/dev/null || say "the report failed (see above); comparing anyway"

if [ ! -f "$baseline/results.json" ]; then
  say "no baseline at $baseline: nothing to compare with; to make this run the baseline:"
  say "  mkdir -p $(dirname "$baseline") && cp -r $out $baseline"
  exit 0
fi
say "comparing with $baseline"
# shellcheck disable=SC2086 # COMPARE_ARGS is a list of options, split on purpose
exec "$lb" compare "$baseline" "$out" ${COMPARE_ARGS:-}
