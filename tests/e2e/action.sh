#!/usr/bin/env bash
# The GitHub Action (action.yml) played for real: tests/node/play-action.mjs runs its steps
# as the runner would (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE,
# GITHUB_ACTION_PATH, a pull request's event and refs) on a local clone whose head branch
# raises refshard's work per tick in its config (the build command copies each ref's config
# beside a built refshard: no compile). Checks the outputs, the step summary, the exit
# code, that publishing is skipped when the input says so, and that a fake token reaches
# no step but publish: not the build, not the campaign's logs.
source "$(dirname "$0")/lib.sh"
source "$SOURCE_ROOT/tests/node/lib.sh"
need_node
if ! git -C "$SOURCE_ROOT" rev-parse -q --verify HEAD >/dev/null 2>&1; then
  skip_test "the source tree is not a git repository"
fi

TOKEN=ghp_actionE2eFakeToken0123456789abcdef
ws=$TMP/workspace
git clone -q "$(git -C "$SOURCE_ROOT" rev-parse --absolute-git-dir)" "$ws"
g() { git -C "$ws" -c user.name=loopbench-test -c user.email=test@loopbench.invalid "$@"; }
# The pull request: lb-head into lb-base, the base as actions/checkout leaves it (origin/).
g update-ref refs/remotes/origin/lb-base HEAD
g checkout -q -b lb-head
config=$ws/profiles/refshard.config.json
jq '.settings["refshard.workPerTickUs"] = "2000"' "$config" >"$config.new" && mv "$config.new" "$config"
g commit -q -m "more work per tick" -- profiles/refshard.config.json
printf '{"pull_request": {"number": 7, "base": {"ref": "lb-base"}, "head": {"ref": "lb-head"}}}\n' \
  >"$TMP/event.json"

# play INPUTS_JSON: the Action's steps as the runner runs them; sets rc.
play() {
  mkdir -p "$TMP/runner-temp" "$TMP/steps"
  : >"$TMP/output" && : >"$TMP/summary.md"
  printf '%s\n' "$1" >"$TMP/inputs.json"
  rc=0
  # A runner's job environment: no variable of this test's but PATH and HOME, the build of
  # loopbench this test runs (a kept build directory, so the build step is ninja's no-op).
  env -i PATH="$PATH" HOME="$HOME" LOOPBENCH_NPM_DIR="$LOOPBENCH_NPM_DIR" \
    ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
    GITHUB_ACTIONS=true CI=true GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$TMP/event.json" \
    GITHUB_BASE_REF=lb-base GITHUB_HEAD_REF=lb-head GITHUB_REPOSITORY=o/r \
    GITHUB_API_URL=http://127.0.0.1:9 GITHUB_WORKSPACE="$ws" GITHUB_ACTION_PATH="$SOURCE_ROOT" \
    GITHUB_OUTPUT="$TMP/output" GITHUB_STEP_SUMMARY="$TMP/summary.md" RUNNER_TEMP="$TMP/runner-temp" \
    LOOPBENCH_BUILD_DIR="$(dirname "$LOOPBENCH")" \
    node "$SOURCE_ROOT/tests/node/play-action.mjs" "$SOURCE_ROOT/action.yml" "$TMP/inputs.json" "$TMP/steps" \
    >"$TMP/play.out" 2>&1 || rc=$?
  cat "$TMP/play.out"
}
output() { sed -n "s/^$1=//p" "$TMP/output"; }

# The build records its environment beside the refshard and config it installs.
# shellcheck disable=SC2016 # expanded by the build's shell
build='cp "'$REFSHARD'" profiles/refshard.config.json "$VARIANT_DIR/" && env >"'$TMP'/build-env.$(basename "$VARIANT_DIR")"'
play "$(jq -n --arg profile "$SOURCE_ROOT/profiles/refshard-ci.json" --arg build "$build" \
  --arg out "$TMP/campaign" --arg token "$TOKEN" '{profile: $profile, settings: "2", rounds: "3",
  warmup: "0.5", window: "1.5", "build-command": $build, out: $out, publish: "false", token: $token}')"

check "the Action fails with compare's exit code 1 (got $rc)" [ "$rc" -eq 1 ]
check "output verdict=regressed" [ "$(output verdict)" = regressed ]
check "output exit-code=1" [ "$(output exit-code)" = 1 ]
check "output results is the campaign's results.json" [ "$(output results)" = "$TMP/campaign/results.json" ]
check "output report is its report.md, written" test -s "$(output report)"
check "output version is loopbench --version's" \
  [ "$(output version)" = "$("$LOOPBENCH" --version | head -n 1 | sed 's/^loopbench //')" ]
check "  ... and not empty" [ -n "$(output version)" ]
check "the campaign: base and head, 3 rounds each at idle wait 2" jq -e '
  (.campaign.variants | map(.name)) == ["base", "head"] and
  ([.runs[] | select(.status == "ok") | "\(.variant) \(.setting)"] | sort) ==
  ["base 2", "base 2", "base 2", "head 2", "head 2", "head 2"]' "$TMP/campaign/results.json"
check "the summary names head and base" grep -q "^loopbench regression job: head \`$(g rev-parse --short lb-head)\` against base \`$(g rev-parse --short origin/lb-base)\`" "$TMP/summary.md"
check "  ... has compare's CPU row regressed" grep -Eq '^\| 2 (head )?\| CPU % \|.*\| \*\*regressed\*\*' "$TMP/summary.md"
check "  ... and the Action's line" grep -q "^loopbench $(output version): \*\*regressed\*\* (exit code 1)" "$TMP/summary.md"
check "the step that lets builds and targets have namespaces of their own ran, and passed" \
  grep -q '^play-action: step 2 __2: exit 0' "$TMP/play.out"
check "publishing is skipped with publish: false" grep -q '^play-action: step 4 __4: skipped' "$TMP/play.out"
check "the last step ran and failed with 1" grep -q '^play-action: step 5 __5: exit 1' "$TMP/play.out"
check "both builds recorded their environment" test -s "$TMP/build-env.base" -a -s "$TMP/build-env.head"
check "  ... a clean one: VARIANT_DIR, no GITHUB_ variable" \
  bash -c "grep -q '^VARIANT_DIR=' '$TMP/build-env.head' && ! grep -q '^GITHUB_' '$TMP/build-env.head'"
check "each step that ran had an environment recorded" [ "$(find "$TMP/steps" -name '*.env' | wc -l)" -eq 5 ]
check "the token is in no step's environment, no build's, no campaign file" \
  bash -c "! grep -rqa -- '$TOKEN' '$TMP/steps' '$TMP/build-env.base' '$TMP/build-env.head' '$TMP/campaign'"
check "the workspace's tree is clean" [ -z "$(g status --porcelain)" ]
check "no work directory left in RUNNER_TEMP" [ -z "$(ls -A "$TMP/runner-temp")" ]
check "no refshard left" no_process_from "$TMP"
