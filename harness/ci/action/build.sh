#!/usr/bin/env bash
# The Action's build step (action.yml): loopbench built from the Action's own checkout
# ($GITHUB_ACTION_PATH), outside the target's tree, in the runner's temporary directory
# (or LOOPBENCH_BUILD_DIR, a directory kept between runs: only what changed is rebuilt).
# Outputs its path (loopbench) and what `loopbench --version` names (version).
set -euo pipefail

build=${LOOPBENCH_BUILD_DIR:-$RUNNER_TEMP/loopbench-build}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$GITHUB_ACTION_PATH" -Dtests=false -Dbuildtype=release >/dev/null
fi
ninja -C "$build" loopbench >/dev/null
lb=$(realpath "$build/loopbench")
version=$("$lb" --version | head -n 1)
printf 'loopbench=%s\nversion=%s\n' "$lb" "${version#loopbench }" >>"$GITHUB_OUTPUT"
echo "built $version"
