#!/usr/bin/env bash
# Benchmark: loopbench's own peak RSS (target: under 4 MiB when no network feature is
# used; measure a plain build, sanitizers inflate it), for
#   1. `loopbench --help`,
#   2. a refshard campaign (4 runs, 100 ms series),
#   3. a campaign with round trips and readiness by HTTP (which loads libcurl),
# and the shared libraries loopbench has mapped during 2 and 3. Every loopbench runs under
# tests/helpers/peakrss (PEAKRSS, set by meson): a launcher lifts its child's peak to its
# own size. The campaigns' figures are results.json's `loopbench.max_rss_kib` (loopbench
# alone, not its target). Prints figures; fails only if a command fails.
source "$(dirname "$0")/lib.sh"
: "${PEAKRSS:?set PEAKRSS to the peakrss helper}"

mib() { awk -v k="$1" 'BEGIN { printf "%.2f MiB", k / 1024 }'; }

# libraries_while DIR PID: once PID has written DIR/results.json (the first run is under
# way), the shared objects it has mapped, one line: how many, then libcurl's if mapped.
libraries_while() {
  local dir=$1 pid=$2 libs
  for _ in $(seq 200); do
    [ -s "$dir/results.json" ] && break
    sleep 0.05
  done
  libs=$(awk '$6 ~ /\.so/ { print $6 }' "/proc/$pid/maps" | sort -u)
  echo "$(wc -l <<<"$libs") shared objects mapped; libcurl: $(grep -c libcurl <<<"$libs" || true)"
}

# campaign NAME PROFILE ARGS...: run a campaign under peakrss, print its peak and libraries.
campaign() {
  local name=$1 profile=$2
  shift 2
  "$PEAKRSS" "$tmp/$name.peak" "$LOOPBENCH" run "$profile" -o "$tmp/$name" -q "$@" >/dev/null &
  local pid=$!
  # peakrss's child is loopbench.
  local lb
  for _ in $(seq 100); do
    lb=$(pgrep -P "$pid" || true)
    [ -n "$lb" ] && break
    sleep 0.02
  done
  local libs
  libs=$(libraries_while "$tmp/$name" "$lb")
  wait "$pid"
  local kib
  kib=$(jq '.loopbench.max_rss_kib' "$tmp/$name/results.json")
  echo "$name: loopbench peak RSS $kib KiB ($(mib "$kib")); $libs"
}

"$PEAKRSS" "$tmp/help.peak" "$LOOPBENCH" --help >/dev/null
kib=$(cat "$tmp/help.peak")
echo "loopbench --help: peak RSS $kib KiB ($(mib "$kib"))"

mkdir -p "$tmp/ref"
cp "$SOURCE_ROOT/profiles/refshard.json" "$SOURCE_ROOT/profiles/refshard.config.json" \
  "$SOURCE_ROOT/profiles/refshard-rtt.json" "$SOURCE_ROOT/profiles/refshard-rtt.config.json" "$tmp/ref/"
cp "$REFSHARD" "$tmp/ref/refshard"
sed -i 's|{loopbench_dir}/refshard|./refshard|' "$tmp/ref/refshard.json" "$tmp/ref/refshard-rtt.json"
campaign refshard "$tmp/ref/refshard.json" -s 0,2 -n 2 -w 1 -t 5 --interval 100

# Round trips on a port of this run's own, and a target ready when a local HTTP server
# (the tests' stub, answering 200 to everything) answers.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed -i "s|127.0.0.1:25930|127.0.0.1:$port|" "$tmp/ref/refshard-rtt.json" "$tmp/ref/refshard-rtt.config.json"
echo '[{"status": 200, "times": -1}]' >"$tmp/stub.script"
python3 "$SOURCE_ROOT/tests/helpers/httpstub.py" --port-file "$tmp/stub.port" --log "$tmp/stub.log" \
  --script "$tmp/stub.script" 2>"$tmp/stub.err" &
stub=$!
for _ in $(seq 100); do
  [ -s "$tmp/stub.port" ] && break
  sleep 0.05
done
jq --arg url "http://127.0.0.1:$(cat "$tmp/stub.port")/health" '.ready = {http: $url, timeout: 15}' \
  "$tmp/ref/refshard-rtt.json" >"$tmp/ref/refshard-rtt-http.json"
campaign rtt-http "$tmp/ref/refshard-rtt-http.json" -s 0,2 -n 1 -w 1 -t 3 --interval 100
kill "$stub"
wait "$stub" 2>/dev/null || true
