#!/usr/bin/env bash
# End-to-end smoke test of the Windows build, under wine: `loopbench run` of a small
# campaign against tests/helpers/wintarget.exe with its config restored, `report`, a
# loopbench killed mid-campaign and `restore`, `sample --pid`, the shipped ModernUO
# profile, and the profiles the Windows build must refuse.
#
# Wine runs every code path but does not account CPU as Windows does (its job
# accounting reports 0, GetProcessTimes of another process its caller's own times;
# docs/platforms.md), so CPU figures are checked for presence and sanity, never value.
# Needs LOOPBENCH and WINTARGET (the .exe files, set by meson), wine and jq.
set -euo pipefail

: "${WINTARGET:?set WINTARGET to wintarget.exe}"
command -v wine >/dev/null || { echo "wine is missing: apt-get install -y wine wine64"; exit 1; }
command -v jq >/dev/null || { echo "jq is missing: apt-get install -y jq"; exit 1; }
export WINEDEBUG=-all
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" # ok, fail, check; $TMP, removed (and its processes killed) at exit
tmp=$TMP

# lb ARGS...: loopbench.exe under wine, keeping its exit status, stdout and stderr.
lb() {
    set +e
    wine "$LOOPBENCH" "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    set -e
}

# Live processes running wintarget.exe (wine shows them by their .exe name; a zombie
# waiting for a container's init to reap it is not one).
targets_left() { pgrep -r R,S,D,T -f 'wintarget\.exe' >/dev/null; }

# The campaign's directory has a space and non-ASCII letters in its name: loopbench.exe
# takes UTF-8 paths (its manifest's code page) and hands the target UTF-16 ones.
work="$tmp/café ü dir"
mkdir "$work"
cp "$WINTARGET" "$work/wintarget.exe"
printf '{\n  "loop": {"idleWaitMs": "0"},\n  "name": "smoke"\n}\n' >"$work/wintarget.config.json"
cp "$work/wintarget.config.json" "$work/config.orig"
cat >"$work/wintarget.json" <<'EOF'
{
  "name": "wintarget",
  "description": "the Windows smoke test's target: burns a share of a core, logs loop: lines",
  "command": ["wintarget.exe", "--share", "0.1", "--config", "wintarget.config.json"],
  "cwd": ".",
  "knob": {
    "name": "idleWaitMs",
    "values": ["0", "2"],
    "baseline": "0",
    "config": { "file": "wintarget.config.json", "path": ["loop", "idleWaitMs"], "type": "string" }
  },
  "ready": { "delay": 0.5 },
  "metrics": {
    "marker": "loop: ",
    "health": [ { "key": "missed16ms", "better": "lower", "must_be_zero": true } ]
  },
  "stop": { "signal": "SIGTERM", "grace": 1 },
  "defaults": { "warmup": 0.5, "sample": 2, "repeat": 1 }
}
EOF

# --- 1. the build names its back-end -----------------------------------------------------
lb --version
check "loopbench --version names the windows back-end" grep -q windows "$tmp/out"

# --- 2. a campaign: two settings, one run each -----------------------------------------------
cd "$work"
lb run wintarget.json -o "$work/res"
if [ "$status" -eq 0 ]; then
    ok "loopbench run exited 0"
else
    fail "loopbench run exited $status: $(cat "$tmp/err")"
fi
check "the config file is byte-identical after the campaign" cmp -s wintarget.config.json config.orig
check "no journal or lock file is left beside the config" \
    test -z "$(find "$work" -maxdepth 1 -name '.wintarget.config.json.loopbench-*')"
check "no wintarget process is left" eval '! targets_left'
res=$work/res/results.json
if [ -f "$res" ]; then
    check "results.json records the command line, non-ASCII letters intact" \
        jq -e '.command_line | tostring | test("café ü dir/res")' "$res"
    check "results.json: the campaign completed" \
        test "$(jq -r .campaign.state "$res")" = finished
    check "results.json: 2 runs, both ok" \
        test "$(jq '[.runs[] | select(.status == "ok")] | length' "$res")" = 2
    check "results.json: the platform is windows" \
        test "$(jq -r .loopbench.platform "$res")" = windows
    check "results.json: each run's CPU is a number >= 0" \
        test "$(jq '[.runs[] | .cpu_seconds | select(type == "number" and . >= 0)] | length' "$res")" = 2
    check "results.json: the CPU source and its resolution are recorded" \
        jq -e '.runs[0].cpu_source == "job-object-accounting" and .runs[0].cpu_resolution_ns > 0' "$res"
    check "the target read each setting from its config (its stdout shows it)" \
        eval 'grep -q "idleWaitMs\": *\"2\"" "$work"/res/runs/*/stdout.log'
    check "results.json: health lines were scraped" \
        jq -e '[.runs[] | .metrics.missed16ms | select(. != null)] | length == 2' "$res"
else
    fail "no results.json in $work/res"
fi

lb report "$work/res" --no-plots
check "loopbench report exits 0" test "$status" -eq 0
check "the report has the CPU table" grep -q '^| idleWaitMs | CPU % of one core' "$tmp/out"
check "the report states the CPU clock and its resolution" \
    grep -Eq 'CPU clock: job-object-accounting, resolution [0-9.]+ ms' "$tmp/out"
check "the report warns that wine's CPU figures are not Windows'" \
    grep -q 'measured under wine' "$tmp/out"

# --- 3. loopbench killed mid-campaign: the target goes with it, restore puts the config back
jq '.defaults.sample = 30' wintarget.json >long.json
wine "$LOOPBENCH" run long.json -o "$work/res-killed" >/dev/null 2>&1 &
PIDS+=("$!")
for _ in $(seq 100); do cmp -s wintarget.config.json config.orig || break; sleep 0.1; done
check "a second campaign edited the config" eval '! cmp -s wintarget.config.json config.orig'
for _ in $(seq 100); do targets_left && break; sleep 0.1; done
check "... and started its target" targets_left
pkill -9 -f 'loopbench\.exe run long\.json' || true
for _ in $(seq 50); do targets_left || break; sleep 0.1; done
check "killing loopbench.exe (SIGKILL) took its target with it: the job's kill-on-close" \
    eval '! targets_left'
check "the config's journal is left beside it" test -s .wintarget.config.json.loopbench-journal
lb restore "$work"
check "loopbench restore exits 0" test "$status" -eq 0
check "... and the config is byte-identical again" cmp -s wintarget.config.json config.orig
check "... with no journal or lock left" \
    test -z "$(find "$work" -maxdepth 1 -name '.wintarget.config.json.loopbench-*')"

# --- 4. sample --pid: attach to a process loopbench did not start ----------------------------
wine "$work/wintarget.exe" --share 0.1 --seconds 60 --pidfile "$tmp/target.pid" >/dev/null 2>&1 &
sampled=$!
PIDS+=("$sampled")
for _ in $(seq 100); do [ -s "$tmp/target.pid" ] && break; sleep 0.1; done
winpid=$(tr -d '\r\n' <"$tmp/target.pid" 2>/dev/null || true)
if [ -n "$winpid" ]; then
    lb sample --pid "$winpid" --seconds 2 --interval 250 --json
    check "sample --pid exits 0" test "$status" -eq 0
    check "sample --pid: CPU seconds >= 0 and wall time about 2 s" \
        jq -e '.cpu_seconds >= 0 and .wall_seconds > 1.5 and .wall_seconds < 4' "$tmp/out"
    check "sample --pid: the CPU source is that process's own times" \
        jq -e '.cpu_source == "process-times" and .resolution_ns > 0' "$tmp/out"
    check "sample --pid: a series of points, the CPU never running backwards" \
        jq -e '(.series | length) >= 4 and all(.series[]; .cpu_percent >= 0)' "$tmp/out"
else
    fail "wintarget wrote no pid file"
fi
kill -9 "$sampled" 2>/dev/null || true
wait "$sampled" 2>/dev/null || true

# --- 5. the shipped ModernUO profile is valid here ----------------------------------------
: "${SOURCE_ROOT:?set SOURCE_ROOT to the source tree}"
mkdir -p "$tmp/shard/Distribution/Configuration"
cp "$SOURCE_ROOT/profiles/modernuo.json" "$tmp/shard/"
cp "$SOURCE_ROOT/tests/data/profiles/modernuo.config.json" \
    "$tmp/shard/Distribution/Configuration/modernuo.json"
# validate finds the profile's command ("./ModernUO" in Distribution: ModernUO.exe here)
cp "$WINTARGET" "$tmp/shard/Distribution/ModernUO.exe"
cd "$tmp/shard"
lb validate modernuo.json
check "the shipped ModernUO profile validates (exit 0)" test "$status" -eq 0
check "... its ready rule is TCP, which Windows has" grep -q 'a TCP connection to 127.0.0.1 port 2593' "$tmp/out"
cd "$work"

# --- 6. what the Windows build refuses, and how -------------------------------------------
jq '.ready = {"log": "ready"}' wintarget.json >needs-regex.json
lb validate needs-regex.json
check "a ready.log profile is refused (exit 2)" test "$status" -eq 2
check "... saying regular expressions are not available on Windows" \
    grep -q 'not available' "$tmp/err"
jq '.rtt = {"tcp": "127.0.0.1:9", "send": "ping"}' wintarget.json >needs-network.json
lb validate needs-network.json
check "an rtt profile is refused, saying the build has no network support" \
    grep -q 'without network support' "$tmp/err"

cd / # out of $TMP, which lib.sh checks for processes left behind
echo "$fails failed"
