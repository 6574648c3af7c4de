#!/usr/bin/env bash
# The CI regression job: build the target at the base of a change and at its head, each
# into a directory of its own, run both as the variants of one campaign (each setting under
# both builds once per round, at the same time on CPUs of their own where the host has two,
# on this host), write the report, and gate head against base with `loopbench compare DIR`
# (or, with GATE=0, leave the campaign for a job that pools several runners' campaigns).
# docs/ci.md explains it.
#
#   bash harness/ci/regress.sh [-- RUN OPTIONS...]
#   bash harness/ci/regress.sh -- -s 2 -n 3 -w 0.5 -t 1.5
#
# Exit status: compare's (0 no regression, 1 regressed, 3 inconclusive with
# COMPARE_ARGS=--fail-on inconclusive), or 2 when there was nothing to gate: bad usage or
# input, a ref that does not resolve, a build or the campaign that failed. With GATE=0: 0
# once the campaign is made, 2 as above.
#
# Environment (all optional; paths relative to the current directory):
#   TARGET_REPO   the target's git repository (default: the one this script is in)
#   HEAD_REF      the change (default HEAD)
#   BASE_REF      what it is compared with (default: the merge base of HEAD_REF with
#                 origin/$GITHUB_BASE_REF in a pull request's Actions run, else with the
#                 default branch: origin/HEAD, origin/main, origin/master, main, master)
#   PROFILE       the profile (default profiles/refshard-ci.json beside this script); it
#                 starts {variant_dir}/..., its relative cwd and config files are taken from
#                 each variant directory
#   BUILD_CMD     shell command that builds one ref: run in a checkout of it (a fresh clone),
#                 it fills the empty directory $VARIANT_DIR with what the profile runs. The
#                 default builds refshard (meson setup, ninja refshard) and copies it there.
#                 It runs under `loopbench exec`: in a PID namespace of its own where the host
#                 allows (it sees no other process of the job), and what it leaves running is
#                 killed when it ends (docs/ci.md).
#                 A config file the profile names that it leaves missing is copied from the
#                 profile's directory, so each variant edits a copy of its own.
#   PASS_ENV      names of variables the build and the targets get besides the base, e.g.
#                 "CC CFLAGS": the build command and the campaign run with a clean environment
#                 (env -i, the base of docs/profiles.md, VARIANT_DIR for the build, these),
#                 never a token or a CI control file (a name that looks like one is refused).
#                 The script itself runs again at once with only these, the base and the
#                 variables above (and RUNNER_TEMP, GITHUB_BASE_REF, GITHUB_STEP_SUMMARY)
#   OUT           the campaign directory (default results/regress-<UTC time>)
#   COMPARE_ARGS  options for loopbench compare, e.g. "--max-increase 15 --fail-on inconclusive"
#   GATE          1 (default) gates with compare; 0 stops after the report, leaving the
#                 campaign in OUT for `loopbench compare --pool` over several runners'
#   SEED          a whole number passed to `loopbench run --seed`: one per shard of a matrix,
#                 so that where the order is random (one CPU, or --order random) the shards
#                 run their rounds in different orders; recorded in results.json
#   LOOPBENCH     a loopbench to run (default: built once from this script's checkout, -Dtests=false,
#                 in BUILD_DIR, default build-ci)
#   WORK          where the clones and builds go (default a temporary directory, removed at
#                 exit unless KEEP_WORK=1)
set -euo pipefail

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'regress.sh: %s\n' "$*" >&2; exit 2; }

LB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

if [ $# -gt 0 ] && [ "$1" = "--" ]; then shift; fi
case "${1:-}" in
  -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
run_args=("$@")

# What the default BUILD_CMD does for this repository: only refshard, the target.
# shellcheck disable=SC2016 # expanded by the shell that runs it, in the worktree
DEFAULT_BUILD_CMD='meson setup "$VARIANT_DIR/build" -Dtests=false >/dev/null &&
  ninja -C "$VARIANT_DIR/build" refshard >/dev/null && cp "$VARIANT_DIR/build/refshard" "$VARIANT_DIR/"'
build_cmd=${BUILD_CMD:-$DEFAULT_BUILD_CMD}
profile=$(realpath -e "${PROFILE:-$LB_ROOT/profiles/refshard-ci.json}") || die "no profile ${PROFILE:-}"
repo=$(git -C "${TARGET_REPO:-$LB_ROOT}" rev-parse --show-toplevel 2>/dev/null) ||
  die "${TARGET_REPO:-$LB_ROOT} is not a git repository (TARGET_REPO)"
out=${OUT:-results/regress-$(date -u +%Y%m%dT%H%M%SZ)}
gate=${GATE:-1}
case "$gate" in 0 | 1) ;; *) die "GATE '$gate': expected 1 (gate with compare) or 0 (campaign and report only)" ;; esac
seed=()
if [ -n "${SEED:-}" ]; then
  [[ "$SEED" =~ ^[0-9]{1,15}$ ]] || die "SEED '$SEED': expected a whole number (loopbench run --seed)"
  seed=(--seed "$SEED")
fi
mkdir -p "$(dirname "$out")"
out=$(realpath -m "$out")
[ ! -e "$out" ] || die "$out exists: give OUT a new directory"

# --- the environment the build and the campaign get ---------------------------------------
# Not this job's, which may hold GITHUB_TOKEN, ACTIONS_* and the files that steer the job:
# the base a target gets (src/model/targetenv.c) and the names of PASS_ENV. A name that looks
# like a credential or a CI control file is refused, by the rule of src/model/targetenv.c.
pass_names=()
for name in ${PASS_ENV:-}; do
  [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "PASS_ENV: '$name' is not a variable name"
  case "${name^^}" in
    GITHUB_ENV | GITHUB_OUTPUT | GITHUB_STEP_SUMMARY | GITHUB_PATH | GITHUB_STATE | ACTIONS_* | AWS_* | \
      GIT_CONFIG_* | *TOKEN* | *SECRET* | *PASSWORD* | *PASSWD* | *CREDENTIAL* | *ASKPASS* | \
      KEY | KEY_* | *_KEY | *_KEY_* | AUTH | AUTH_* | *_AUTH | *_AUTH_* | APIKEY | APIKEY_* | *_APIKEY | *_APIKEY_*)
      die "PASS_ENV: '$name' is never passed to the build or a target: it looks like a credential or a CI control file" ;;
  esac
  pass_names+=("$name")
done
base_names() { compgen -e | grep -E -x 'PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Za-z_]+|TZ|TMPDIR|TERM|XDG_RUNTIME_DIR|XDG_CONFIG_HOME|XDG_DATA_HOME|XDG_CACHE_HOME|XDG_STATE_HOME' ||
    true; }
# This script's own process keeps only what it reads: where no PID namespace hides it from
# a build (docs/ci.md), its environment holds no token. It runs again so, once.
if [ -z "${LOOPBENCH_REGRESS_SCRUBBED:-}" ]; then
  keep=(LOOPBENCH_REGRESS_SCRUBBED=1)
  for name in $(base_names) TARGET_REPO HEAD_REF BASE_REF PROFILE BUILD_CMD PASS_ENV OUT COMPARE_ARGS \
    GATE SEED LOOPBENCH BUILD_DIR WORK KEEP_WORK RUNNER_TEMP GITHUB_BASE_REF GITHUB_STEP_SUMMARY \
    "${pass_names[@]}"; do
    if [ -n "${!name+set}" ]; then keep+=("$name=${!name}"); fi
  done
  exec env -i "${keep[@]}" bash "${BASH_SOURCE[0]}" -- "${run_args[@]}"
fi
clean_env=(env -i)
for name in $(base_names); do clean_env+=("$name=${!name}"); done
pass_env=()
for name in "${pass_names[@]}"; do
  pass_env+=(--pass-env "$name")
  if [ -n "${!name+set}" ]; then clean_env+=("$name=${!name}"); fi
done

# --- the two refs --------------------------------------------------------------------------
g() { git -C "$repo" "$@"; }
head_sha=$(g rev-parse -q --verify "${HEAD_REF:-HEAD}^{commit}") || die "no commit ${HEAD_REF:-HEAD} in $repo"
if [ -n "${BASE_REF:-}" ]; then
  base_sha=$(g rev-parse -q --verify "$BASE_REF^{commit}") || die "no commit $BASE_REF in $repo (BASE_REF)"
  base_what=$BASE_REF
else
  branch=
  if [ -n "${GITHUB_BASE_REF:-}" ]; then
    branch=origin/$GITHUB_BASE_REF
  elif ! branch=$(g symbolic-ref -q --short refs/remotes/origin/HEAD); then
    for b in origin/main origin/master main master; do
      if g rev-parse -q --verify "$b^{commit}" >/dev/null; then branch=$b; break; fi
    done
  fi
  [ -n "$branch" ] || die "no default branch in $repo: set BASE_REF"
  base_sha=$(g merge-base "$head_sha" "$branch") ||
    die "no merge base of ${HEAD_REF:-HEAD} and $branch (a shallow clone? check out with fetch-depth: 0)"
  base_what="the merge base with $branch"
fi
say "base: $(g log -1 --format='%h %s' "$base_sha") ($base_what)"
say "head: $(g log -1 --format='%h %s' "$head_sha")"
[ "$base_sha" != "$head_sha" ] || say "base and head are the same commit: this run compares a build with itself"

# --- a place for the worktrees and builds, cleaned up whatever happens ---------------------
work=${WORK:-$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/loopbench-regress-XXXXXX")}
mkdir -p "$work"
work=$(realpath "$work")
child=
clones=()
# shellcheck disable=SC2317 # called by the traps
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$child" ]; then
    kill -TERM -- "-$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  for src in "${clones[@]}"; do rm -rf "$src"; done
  if [ -z "${KEEP_WORK:-}" ] && [ -z "${WORK:-}" ]; then rm -rf "$work"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# in_background CMD...: runs CMD in a process group of its own, so that a signal to this
# script reaches the trap at once and the trap stops CMD and what it started; returns CMD's
# status.
setsid=()
if command -v setsid >/dev/null; then setsid=(setsid); fi
in_background() {
  local rc=0
  "${setsid[@]}" "$@" &
  child=$!
  wait "$child" || rc=$?
  child=
  return "$rc"
}

# --- loopbench, built once -------------------------------------------------------------------
if [ -n "${LOOPBENCH:-}" ]; then
  lb=$(realpath -e "$LOOPBENCH") || die "no loopbench at $LOOPBENCH"
else
  build=${BUILD_DIR:-build-ci}
  case "$build" in /*) ;; *) build=$LB_ROOT/$build ;; esac
  if [ ! -f "$build/build.ninja" ]; then
    say "configuring loopbench in $build"
    meson setup "$build" "$LB_ROOT" -Dtests=false >/dev/null || die "meson setup of loopbench failed"
  fi
  say "building loopbench in $build"
  ninja -C "$build" loopbench >/dev/null || die "building loopbench failed"
  lb=$build/loopbench
fi

# --- each variant: a clone of its ref, its build, its config files --------------------------
# The config files the profile edits, relative ones (each variant needs its own copy).
mapfile -t configs < <(jq -r '[.knob.config.file?, (.fixed[]?.config.file?)] | map(select(. != null
  and (startswith("/") | not))) | unique[]' "$profile") || die "cannot read $profile"
profile_dir=$(dirname "$profile")

prepare() { # prepare NAME SHA
  local name=$1 sha=$2 src=$work/src-$1 dir=$work/$1 f
  say "building $name ($(g rev-parse --short "$sha")) into $dir"
  # A clone of its own, not a worktree of this checkout: a worktree shares the checkout's
  # .git/config, where actions/checkout keeps the job's token unless told not to. Its
  # objects are borrowed (--shared), so any commit of the repository can be checked out.
  clones+=("$src")
  git clone -q --shared --no-checkout "$repo" "$src" || die "a clone of $repo failed"
  git -C "$src" checkout -q --detach "$sha" || die "checking out $sha in a clone of $repo failed"
  if origin=$(g remote get-url origin 2>/dev/null); then git -C "$src" remote set-url origin "$origin"; fi
  if [ -f "$src/.gitmodules" ]; then
    git -C "$src" submodule update -q --init --recursive || die "submodules of $name failed"
  fi
  mkdir -p "$dir"
  # As loopbench runs a target (loopbench exec): in a PID namespace of its own where the
  # host allows, so that it reads no environment of this job's processes, and nothing it
  # starts outlives it (a daemon could edit the report before it is published).
  # shellcheck disable=SC2016 # expanded by the shell that runs it
  if ! in_background "${clean_env[@]}" "VARIANT_DIR=$dir" "$lb" exec -- bash -c 'cd "$1" && eval "$2"' \
    build "$src" "$build_cmd" >"$work/build-$name.log" 2>&1; then
    cat "$work/build-$name.log" >&2
    die "the build of $name failed (BUILD_CMD)"
  fi
  for f in "${configs[@]}"; do
    [ -e "$dir/$f" ] && continue
    [ -f "$profile_dir/$f" ] || die "the profile's config file $f is neither in $name's build nor beside the profile"
    mkdir -p "$(dirname "$dir/$f")"
    cp "$profile_dir/$f" "$dir/$f"
  done
}
prepare base "$base_sha"
prepare head "$head_sha"

# --- one campaign of both, its report, the gate ---------------------------------------------
# Base and head of a setting at the same time, each on a CPU of its own (--order duet): on a
# quiet host the spread of the comparison was half that of running them in turn (docs/ci.md).
# One CPU, or an --order given, runs them in turn.
order=()
if [[ " ${run_args[*]} " != *" --order"* ]] && [ "$(nproc)" -ge 2 ]; then order=(--order duet); fi
say "campaign of $(basename "$profile") into $out: base and head as variants${order:+, as a duet}"
rc=0
in_background "${clean_env[@]}" "$lb" run "$profile" --variant "base=$work/base" \
  --variant "head=$work/head" -o "$out" "${order[@]}" "${seed[@]}" "${pass_env[@]}" "${run_args[@]}" || rc=$?
[ "$rc" -eq 0 ] || die "the campaign failed (loopbench run exited $rc)"
# A report that fails (a plot, say) must not hide the verdict: the gate still runs.
if "$lb" report "$out" -o "$out/report.md" --plots "$out/plots"; then say "report: $out/report.md"; else say "the report failed; gating anyway"; fi

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  printf 'loopbench regression job: head %s against base %s (%s), one campaign of both%s.\n\n' \
    "\`$(g rev-parse --short "$head_sha")\`" "\`$(g rev-parse --short "$base_sha")\`" "$base_what" \
    "$([ "$gate" = 1 ] || echo ', not gated here (GATE=0): a pooled job gates the campaigns of every runner')" \
    >>"$GITHUB_STEP_SUMMARY"
fi
if [ "$gate" = 0 ]; then
  say "not gated (GATE=0): the campaign is $out"
  exit 0
fi
say "gate: loopbench compare $out ${COMPARE_ARGS:-}"
# shellcheck disable=SC2086 # COMPARE_ARGS is a list of options, split on purpose
"$lb" compare "$out" ${COMPARE_ARGS:-} || rc=$?
case "$rc" in
  0) say "no regression" ;;
  1) say "regressed" ;;
  3) say "inconclusive (--fail-on inconclusive)" ;;
  *) say "compare could not gate (exit $rc)" ;;
esac
exit "$rc"
