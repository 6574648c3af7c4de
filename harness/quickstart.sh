#!/usr/bin/env bash
# The README's two commands. Safe to rerun; prints what it does.
#
#   bash harness/quickstart.sh main   install what is missing, build, run the main job
#                                     (an A/B campaign of the reference shard)
#   bash harness/quickstart.sh test   install what is missing, build, run every test
#   bash harness/quickstart.sh build-deps
#                                     install what is missing to build and run loopbench
#                                     (and its report's plots), nothing for the tests
#
# .ci/run calls the second one; the GitHub Action (action.yml) the third.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Each step with the seconds since the script started, so a CI log shows where its time went.
say() { printf '==> [%4ds] %s\n' "$SECONDS" "$*"; }

# Debian packages: the build, the libraries and what the jobs call (jq, gnuplot), then the
# tests' tools.
BUILD_PACKAGES=(gcc pkg-config meson ninja-build libjansson-dev libcurl4-openssl-dev jq gnuplot-nox)
PACKAGES=("${BUILD_PACKAGES[@]}" clang check python3 valgrind)
# Only the tests need these: Node.js runs Mermaid's parser and the workflow validator
# (tests/node/, their npm packages cached by harness/npm-deps.sh); man renders
# loopbench(1) (tests/e2e/manpage.sh, install.sh); the Debian package is built, linted and
# installed (tests/e2e/deb.sh); real servers run with their profiles (tests/e2e/servers.sh).
TEST_PACKAGES=(nodejs npm man-db debhelper dpkg-dev fakeroot lintian redis-server erlang-base haproxy)

# install_missing PACKAGE...: apt-get install those not installed.
install_missing() {
  local missing=()
  for p in "$@"; do
    # A node and an npm of another origin (NodeSource's nodejs bundles npm) will do.
    if [ "$p" = nodejs ] && command -v node >/dev/null; then continue; fi
    if [ "$p" = npm ] && command -v npm >/dev/null; then continue; fi
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    say "all packages present: $*"
    return
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "quickstart: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  say "installing: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# configure DIR [meson options...]: set up a build directory, or reconfigure it.
configure() {
  local dir=$1; shift
  if [ -f "$dir/build.ninja" ]; then
    say "reconfiguring $dir"
    meson setup --reconfigure "$dir" "$@" >/dev/null
  else
    say "configuring $dir"
    meson setup "$dir" "$@" >/dev/null
  fi
}

# phase NAME: the test command's time so far is NAME's from here on; phase_times prints
# each phase's seconds at the end, so a CI log shows where its minutes went.
phase_names=() phase_starts=()
phase() {
  phase_names+=("$1")
  phase_starts+=("$SECONDS")
}
phase_times() {
  local i line="time by phase:" end
  for i in "${!phase_names[@]}"; do
    end=${phase_starts[i + 1]:-$SECONDS}
    line+=" ${phase_names[i]} $((end - phase_starts[i])) s;"
  done
  echo "$line total $SECONDS s"
}

# count_results DIR [SETUP]: add DIR's meson test log (of that test setup) to the totals.
passed=0 failed=0 skipped=0 failures= skips=
count_results() {
  local log=$1/meson-logs/testlog${2:+-$2}.json
  [ -f "$log" ] || return 0
  local p f s
  p=$(jq -s '[.[] | select(.result == "OK" or .result == "EXPECTEDFAIL")] | length' "$log")
  local failed_result='.result == "FAIL" or .result == "TIMEOUT" or .result == "ERROR" or .result == "UNEXPECTEDPASS"'
  f=$(jq -s "[.[] | select($failed_result)] | length" "$log")
  s=$(jq -s '[.[] | select(.result == "SKIP")] | length' "$log")
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  # Each failed test with its failed checks (the lines its script began with FAIL), for the
  # end of the log, where a CI excerpt shows them.
  local new
  new=$(jq -r "select($failed_result)"' | "  \(.name) (\(.result)):", ((.stdout // "")
    | split("\n")[] | select(test("^(FAIL|not ok)")) | "    " + .[0:300])' "$log")
  [ -z "$new" ] || failures+=$new$'\n'
  # Each skipped test with the reason it gave (its "skip:" line).
  new=$(jq -r 'select(.result == "SKIP") | "  \(.name): " + ((.stdout // "")
    | split("\n") | map(select(startswith("skip: "))) | (.[0] // "skip: no reason given") | .[6:306])' "$log")
  [ -z "$new" ] || skips+=$new$'\n'
}

main_job() {
  install_missing "${PACKAGES[@]}"
  configure build
  say "building"
  ninja -C build
  say "running the main job: loopbench run (the reference shard at idle wait 0 and 2)"
  ./build/loopbench run
}

# The Windows build (mingw-w64, cross-compiled) and its tests under wine: the unit tests
# of the portable modules and the platform layer, and the smoke test of run, report and
# sample --pid (tests/e2e/windows.sh). jansson and check are cross-built from Debian's
# source packages once per Debian version, into a cache outside the clone.
windows_tests() {
  local deps=${LOOPBENCH_WINDEPS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/loopbench/windeps}
  say "cross-building jansson and check for Windows (cached in $deps)"
  LOOPBENCH_WINDEPS="jansson check" bash harness/windows/deps.sh "$deps" "$deps-src" || return 1
  configure build-win -Dwerror=true --cross-file "$deps/cross-prefix.ini" \
    --cross-file harness/windows/x86_64-w64-mingw32.ini
  say "building for Windows (mingw-w64, warnings are errors)"
  ninja -C build-win || return 1
  say "running the Windows tests under wine"
  # One scratch wine prefix, made before the tests run side by side, and its wineserver
  # stopped after them. Beside two CPU spinners a prefix once came out without its
  # system32 (every test then "could not load kernel32.dll"): checked, and made again once.
  export WINEPREFIX=$PWD/build-win/wineprefix WINEDEBUG=-all
  local try
  for try in 1 2; do
    wineboot --init >/dev/null 2>&1 && wineserver -w
    [ -f "$WINEPREFIX/drive_c/windows/system32/kernel32.dll" ] && break
    say "the wine prefix has no kernel32.dll (attempt $try); making it again"
    wineserver -k 2>/dev/null || true
    rm -rf "$WINEPREFIX"
  done
  local status=0
  meson test -C build-win --print-errorlogs || status=1
  wineserver -k 2>/dev/null || true
  return $status
}

# clang, warnings as errors, no sanitizer: the unit tests (but the sampler's, slow and
# platform-bound, which the gcc build runs); loopbench under valgrind (DWARF 4: Debian's
# valgrind 3.19 cannot read clang's DWARF 5) in the end-to-end tests of sampling and of a
# config restored after SIGKILL; and the Windows build.
other_builds() {
  local status=0
  CC=clang configure build-clang -Dwerror=true -Dc_args=-gdwarf-4
  say "building with clang (warnings are errors)"
  ninja -C build-clang || return 1
  say "running the unit tests (clang build)"
  meson test -C build-clang --suite unit --no-suite slow --print-errorlogs || status=1
  say "running two end-to-end tests with loopbench under valgrind (clang build)"
  meson test -C build-clang --setup valgrind sample restore --print-errorlogs || status=1
  windows_tests || status=1
  return $status
}

# cpu_ticks: "busy TOTAL" of the machine from /proc/stat's first line (USER_HZ ticks), then
# "PID TICKS<tab>NAME" for every process, TICKS its user + system time.
cpu_ticks() {
  awk 'NR == 1 { print "busy", $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat
  local f line
  for f in /proc/[0-9]*/stat; do
    read -r line 2>/dev/null <"$f" && printf '%s\n' "$line"
  done | sed 's/^\([0-9]*\) (\(.*\)) [A-Za-z] \(.*\)$/\1 \3\t\2/' |
    awk -F'\t' '{ split($1, f, " "); print f[1], f[12] + f[13] "\t" $2 }'
}

# busy_elsewhere: how busy the machine was over one second and every process that used 5%
# of a core or more, so that a CI log tells a CPU figure's failure from a machine somebody
# else kept busy.
busy_elsewhere() {
  local before
  before=$(cpu_ticks)
  sleep 1
  { printf '%s\n' "$before"; echo ---; cpu_ticks; } | awk -F'\t' -v hz="$(getconf CLK_TCK)" '
      $0 == "---" { after = 1; next }
      { split($1, k, " ") }
      k[1] == "busy" { if (after) { busy = k[2] - b; total = k[3] - t } else { b = k[2]; t = k[3] }; next }
      !after { ticks[k[1]] = k[2]; next }
      (k[1] in ticks) && (k[2] - ticks[k[1]]) * 100 / hz >= 5 {
        name = $2; gsub(/[^[:print:]]/, "?", name) # a process names itself: no escapes in the log
        list = list sprintf(" %s (pid %s) %d%%;", name, k[1], (k[2] - ticks[k[1]]) * 100 / hz) }
      END { printf "    the CPUs %d%% busy over one second; processes over 5%% of a core:%s\n",
                   total ? 100 * busy / total : 0, list ? list : " none" }'
}

test_job() {
  phase install
  install_missing "${PACKAGES[@]}" "${TEST_PACKAGES[@]}"
  local rc=0
  local npm_cache=${LOOPBENCH_NPM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/loopbench/npm}
  say "npm packages of the tests on Node.js (cached in $npm_cache)"
  bash harness/npm-deps.sh tests/node "$npm_cache" || rc=1
  export LOOPBENCH_NPM_DIR=$npm_cache
  export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  # The clang, valgrind and Windows builds and their tests, from the start, beside
  # everything else (logged apart, printed when done): on a new machine they take longest.
  mkdir -p build-logs
  local other_log=$PWD/build-logs/other-builds.log other_rc=0
  other_builds >"$other_log" 2>&1 &
  local other=$!
  # gcc, warnings as errors, AddressSanitizer + UndefinedBehaviorSanitizer: the whole
  # suite, unit and end-to-end.
  phase build
  configure build-test -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false
  say "building with gcc (warnings are errors) and the sanitizers"
  ninja -C build-test
  # Every test side by side, four at a time (most of an end-to-end test's time is its
  # targets' windows, sleeping, and every check that judges a CPU figure holds under load:
  # tests/meson.build); then, with nothing else running, the few that judge what the CPUs
  # themselves did (suite alone).
  phase tests
  say "running the tests side by side (gcc, sanitizers)"
  meson test -C build-test --num-processes 4 --no-suite alone --print-errorlogs || rc=1
  count_results build-test
  phase "other builds"
  wait "$other" || other_rc=1
  cat "$other_log"
  [ "$other_rc" -eq 0 ] || rc=1
  count_results build-clang
  count_results build-clang valgrind
  count_results build-win
  phase alone
  say "running the tests that judge what the CPUs did, one at a time (gcc, sanitizers)"
  busy_elsewhere
  meson test -C build-test --suite alone --print-errorlogs || rc=1
  count_results build-test
  [ -z "$skips" ] || printf '%d skipped:\n%s' "$skipped" "$skips"
  [ -z "$failures" ] || printf 'failed:\n%s' "$failures"
  phase_times
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]
}

case "${1:-}" in
  main) main_job ;;
  test) test_job ;;
  build-deps) install_missing "${BUILD_PACKAGES[@]}" ;;
  *) echo "usage: bash harness/quickstart.sh main|test|build-deps" >&2; exit 2 ;;
esac
