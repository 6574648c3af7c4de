#!/usr/bin/env bash
# Hostile pull request, the environment (docs/reliability.md): a target that prints its
# whole environment and a terminal escape payload, run by a loopbench whose environment
# holds a CI job's tokens and control files. The target sees the base allowlist, its
# profile's env and what was passed on purpose, nothing else; no token reaches its log,
# results.json or loopbench's terminal, also when the run fails and its log tail is
# printed, and the tail reaches the terminal with its control characters escaped. Passing
# a credential on purpose is refused. harness/ci/regress.sh hands neither the build nor
# the campaign a token. See docs/profiles.md (pass_env) and docs/ci.md.
source "$(dirname "$0")/lib.sh"

# What a target may see: the base of src/model/targetenv.c (docs/profiles.md), then what each
# part of this test passes or sets on purpose.
base='PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Za-z_]+|TZ|TMPDIR|TERM|XDG_RUNTIME_DIR|XDG_CONFIG_HOME|XDG_DATA_HOME|XDG_CACHE_HOME|XDG_STATE_HOME'
# only_names FILE EXTRA: FILE is there, and every NAME=... line of it names a base variable
# or one of EXTRA (an alternation); prints the others.
only_names() {
  local strays
  [ -s "$1" ] || { echo "  no $1"; return 1; }
  strays=$(grep -a -E '^[A-Za-z_][A-Za-z0-9_]*=' "$1" | cut -d= -f1 | grep -v -x -E "$base|$2" || true)
  [ -z "$strays" ] || { echo "  not allowed: $(echo "$strays" | tr '\n' ' ')"; return 1; }
}
# none_of FILE...: every file is there, and holds no secret value of this test.
none_of() {
  local f
  for f in "$@"; do [ -e "$f" ] || { echo "  no $f"; return 1; }; done
  ! grep -a -l -e "$GH_SECRET" -e "$GHS_SECRET" -e "$RT_SECRET" -e "$AWS_SECRET" "$@"
}
# no_raw_controls FILE...: no ESC, BEL or C1 CSI (alone or in UTF-8) in the files.
no_raw_controls() { ! LC_ALL=C grep -a -q -P '[\x1b\x07\x9b]' "$@"; }

GH_SECRET=ghp_hostileGithubToken0123456789
GHS_SECRET=gho_hostileGhToken0123456789
RT_SECRET=hostileRuntimeToken0123456789
AWS_SECRET=hostileAwsSecret0123456789
output=$TMP/github_output
: >"$output"
# The environment of a CI job that holds secrets: what loopbench itself is started with.
job_env=("GITHUB_TOKEN=$GH_SECRET" "GH_TOKEN=$GHS_SECRET" "ACTIONS_RUNTIME_TOKEN=$RT_SECRET"
  "AWS_SECRET_ACCESS_KEY=$AWS_SECRET" "GITHUB_OUTPUT=$output" "GITHUB_ENV=$output"
  STRAY_SETTING=not-for-the-target PASS_ME=passed-on-purpose PROFILE_PASS=passed-by-profile)

# The target: its environment as it was given (the shell adds PWD, SHLVL... to its own),
# an attempt on the job's files, a terminal payload (a window title by OSC, a colour by
# CSI, a bell, a C1 CSI in UTF-8), ready; in its last lines (the log tail) the tokens
# again. EXIT=N makes it exit N after printing, in the warm-up.
cat >"$TMP/envdump" <<'SH'
#!/bin/sh
tr '\0' '\n' </proc/$$/environ
[ -n "${GITHUB_OUTPUT:-}" ] && echo "pwned=1" >>"$GITHUB_OUTPUT"
printf 'payload: \033]0;pwned\007 \033[31mred\033[0m \302\233 csi\n'
echo ready
echo "tokens: ${GITHUB_TOKEN:-} ${GH_TOKEN:-} ${ACTIONS_RUNTIME_TOKEN:-} ${AWS_SECRET_ACCESS_KEY:-}" >&2
[ "${EXIT:-}" = "" ] || exit "$EXIT"
exec sleep 60
SH
chmod +x "$TMP/envdump"
profile() { # profile FILE EXIT [PASS_ENV]: the profile, with a pass_env when given
  cat >"$1" <<JSON
{ "name": "envdump", "command": ["$TMP/envdump"],
  "env": { "EXIT": "$2", "PROFILE_SET": "set-by-profile" },${3:+ \"pass_env\": [\"$3\"],}
  "knob": { "name": "x", "values": ["1"], "env": "KNOB" },
  "ready": { "log": "^ready$", "timeout": 10 }, "stop": { "grace": 1 } }
JSON
}
profile "$TMP/ok.json" "" PROFILE_PASS
profile "$TMP/fails.json" 3

# --- 1. a run with variables passed on purpose: the target's environment, its log,
# results.json, the terminal ---------------------------------------------------------------
rc=0
env "${job_env[@]}" "$LOOPBENCH" run "$TMP/ok.json" --pass-env PASS_ME -n 1 -w 0.2 -t 0.5 \
  -o "$TMP/ok" >"$TMP/ok.out" 2>"$TMP/ok.err" || rc=$?
check "the run exits 0 (got $rc)" [ "$rc" -eq 0 ]
log=$TMP/ok/runs/1-1/stdout.log
check "the target printed its environment" grep -q '^KNOB=1$' "$log"
check "it saw only the base, its profile's env and what was passed on purpose" \
  only_names "$log" 'KNOB|EXIT|PROFILE_SET|PROFILE_PASS|PASS_ME'
check "  ... --pass-env PASS_ME and the profile's pass_env PROFILE_PASS among them" \
  grep -q -x -e PASS_ME=passed-on-purpose "$log"
check "  ... PROFILE_PASS" grep -q -x -e PROFILE_PASS=passed-by-profile "$log"
check "  ... an ordinary variable not passed is withheld" bash -c "[ -s '$log' ] && ! grep -q STRAY_SETTING '$log'"
check "no token in the run's logs, results.json or loopbench's output" \
  none_of "$TMP/ok/runs/1-1/stdout.log" "$TMP/ok/runs/1-1/stderr.log" "$TMP/ok/results.json" \
  "$TMP/ok.out" "$TMP/ok.err"
check "the job's GITHUB_OUTPUT file is untouched" [ ! -s "$output" ]
# shellcheck disable=SC2016 # jq's variables
check "results.json names what was passed, never a value" jq -e --arg base "^($base)$" '
  .campaign.environment as $e | $e.pass_env == ["PASS_ME"]
  and ($e.passed | index("PASS_ME") and index("PROFILE_PASS") and index("PATH"))
  and all($e.passed[]; test($base) or . == "PASS_ME" or . == "PROFILE_PASS")
  and $e.withheld >= 7' "$TMP/ok/results.json"
check "results.json validates against the documented schema" \
  jq -e -f "$SOURCE_ROOT/tests/data/results-schema.jq" "$TMP/ok/results.json"

# --- 2. a run that fails after printing, nothing passed: its log, the log tail on the terminal
rc=0
env "${job_env[@]}" "$LOOPBENCH" run "$TMP/fails.json" -n 1 -w 1 -t 0.5 -o "$TMP/fails" \
  >"$TMP/fails.out" 2>"$TMP/fails.err" || rc=$?
check "the failed run exits 1 (got $rc)" [ "$rc" -eq 1 ]
check "its log tail was printed" grep -q 'tokens:' "$TMP/fails.err"
check "the target saw only the base and its profile's env" \
  only_names "$TMP/fails/runs/1-1/stdout.log" 'KNOB|EXIT|PROFILE_SET'
check "no token in the tail, the logs, results.json or the terminal" \
  none_of "$TMP/fails/runs/1-1/stdout.log" "$TMP/fails/runs/1-1/stderr.log" \
  "$TMP/fails/results.json" "$TMP/fails.out" "$TMP/fails.err"
check "the terminal got no raw ESC, BEL or C1 CSI" no_raw_controls "$TMP/fails.out" "$TMP/fails.err"
check "the job's GITHUB_OUTPUT file is still untouched" [ ! -s "$output" ]
check "  ... the payload shown escaped instead" \
  grep -q -F 'payload: \x1b]0;pwned\x07 \x1b[31mred\x1b[0m \xc2\x9b csi' "$TMP/fails.err"
check "results.json keeps the tail, escaped alike" jq -e '.runs[0].log_tail |
  contains("payload: \\x1b]0;pwned") and (test("[\u0000-\u0008\u000b-\u001f\u007f-\u009f]") | not)' \
  "$TMP/fails/results.json"

# --- 3. passing a credential on purpose is refused ------------------------------------------
refused() { # refused NAME WHERE ARGS...: exit 2, one line naming NAME, nothing run
  local name=$1 where=$2 rc=0; shift 2
  env "${job_env[@]}" "$LOOPBENCH" "$@" >"$TMP/refused.out" 2>"$TMP/refused.err" || rc=$?
  [ "$rc" -eq 2 ] && grep -q -e "$where '$name': never passed to a target" "$TMP/refused.err" &&
    [ ! -e "$TMP/refused" ] || { echo "  exit $rc: $(head -n 1 "$TMP/refused.err")"; return 1; }
}
for name in gh_token ACTIONS_RUNTIME_TOKEN GITHUB_OUTPUT API_KEY; do
  check "run --pass-env $name is refused (exit 2)" \
    refused "$name" --pass-env run "$TMP/ok.json" --pass-env "PASS_ME,$name" -o "$TMP/refused"
done
sed 's/"PROFILE_PASS"/"PROFILE_PASS", "GH_TOKEN"/' "$TMP/ok.json" >"$TMP/asks.json"
check "a profile whose pass_env names GH_TOKEN is refused by validate (exit 2)" \
  refused GH_TOKEN 'pass_env\[1\]' validate "$TMP/asks.json"
check "  ... and by run" refused GH_TOKEN 'pass_env\[1\]' run "$TMP/asks.json" -o "$TMP/refused"
rc=0
"$LOOPBENCH" run --resume "$TMP/ok" --pass-env PASS_ME >/dev/null 2>"$TMP/resume.err" || rc=$?
check "run --resume refuses a --pass-env (exit 2): the campaign keeps its own" \
  bash -c "[ $rc -eq 2 ] && grep -q -e \"'--pass-env' cannot be combined\" '$TMP/resume.err'"

# A campaign whose first run fails (the target exits when FLAG is there, removing it), resumed:
# the resumed run gets what the campaign passed, and still no token.
cat >"$TMP/once.json" <<JSON
{ "name": "once", "command": ["sh", "-c",
    "echo PASS_ME=\${PASS_ME:-} GITHUB_TOKEN=\${GITHUB_TOKEN:-}; [ -e \"\$FLAG\" ] && rm \"\$FLAG\" && exit 4; echo ready; exec sleep 60"],
  "env": { "FLAG": "$TMP/flag" }, "knob": { "name": "x", "values": ["1"], "env": "KNOB" },
  "ready": { "log": "^ready$", "timeout": 10 }, "stop": { "grace": 1 } }
JSON
touch "$TMP/flag"
rc=0
env "${job_env[@]}" "$LOOPBENCH" run "$TMP/once.json" --pass-env PASS_ME -n 1 -w 0 -t 0.3 \
  -o "$TMP/once" -q >/dev/null 2>&1 || rc=$?
env "${job_env[@]}" "$LOOPBENCH" run --resume "$TMP/once" -q >/dev/null 2>"$TMP/once.err" || rc=$rc$?
check "a campaign failed, then resumed (exit 1, then 0: got $rc)" [ "$rc" = 1 ]
check "  ... the resumed run got the campaign's --pass-env, and no token" \
  grep -q -x -e 'PASS_ME=passed-on-purpose GITHUB_TOKEN=' "$TMP/once/runs/1-1/stdout.log"

# --- 4. harness/ci/regress.sh: the build and the campaign get no token -----------------------
# Both builds are a script that records its environment and installs a refshard that records
# its own, then says it is ready; the job runs one setting, one short round.
repo=$TMP/repo
git clone -q "$(git -C "$SOURCE_ROOT" rev-parse --absolute-git-dir)" "$repo"
git -C "$repo" config http.https://github.com/.extraheader "AUTHORIZATION: basic $GH_SECRET"
# shellcheck disable=SC2016 # expanded by the shell that runs the build
build_cmd='env >"$VARIANT_DIR/build-env.txt"; git config --list >"$VARIANT_DIR/git-config.txt";
cat >"$VARIANT_DIR/refshard" <<"EOF"
#!/bin/sh
tr "\0" "\n" </proc/$$/environ >"$PWD/target-env.txt"
echo "loop stats: reporting every 1 s"
exec sleep 60
EOF
chmod +x "$VARIANT_DIR/refshard"'
rc=0
env "${job_env[@]}" GITHUB_STEP_SUMMARY="$TMP/summary.md" PASS_ENV=PASS_ME TARGET_REPO="$repo" \
  BASE_REF=HEAD HEAD_REF=HEAD LOOPBENCH="$LOOPBENCH" OUT="$TMP/regress" WORK="$TMP/regress-work" \
  BUILD_CMD="$build_cmd" PROFILE="$SOURCE_ROOT/profiles/refshard-ci.json" \
  bash "$SOURCE_ROOT/harness/ci/regress.sh" -- -s 2 -n 1 -w 0 -t 0.5 -q \
  >"$TMP/regress.out" 2>"$TMP/regress.err" || rc=$?
check "regress.sh ran its campaign to the gate (exit $rc)" [ -s "$TMP/regress/results.json" ]
# The build gets loopbench exec's environment, which under valgrind holds valgrind's own.
by_valgrind=
[ -z "${LOOPBENCH_VALGRIND:-}" ] || by_valgrind='|LD_PRELOAD|LD_LIBRARY_PATH|GLIBCXX_FORCE_NEW|GLIBCPP_FORCE_NEW'
for v in base head; do
  check "the $v build saw only the base, VARIANT_DIR and PASS_ENV's PASS_ME" \
    only_names "$TMP/regress-work/$v/build-env.txt" "VARIANT_DIR|PASS_ME|PWD|SHLVL|_|OLDPWD$by_valgrind"
  check "  ... no token in its environment" none_of "$TMP/regress-work/$v/build-env.txt"
  check "  ... nor in its checkout's git config (the job's is not shared)" \
    none_of "$TMP/regress-work/$v/git-config.txt"
  check "its target saw only the base and PASS_ENV's PASS_ME" only_names "$TMP/regress-work/$v/target-env.txt" PASS_ME
done
check "no token in the job's output" none_of "$TMP/regress.out" "$TMP/regress.err"
