#!/usr/bin/env bash
# Hostile pull request, memory and time (issue 23, point 4): what a target logs and what a
# results.json made elsewhere holds cannot make loopbench's memory grow with it, nor make
# `report` or `compare` hang or flood. Every command runs under `timeout`, so the test
# itself never hangs on a loopbench that would.
#   1. 5 MiB of marker lines in one window: loopbench's peak RSS within 2x of the same
#      window without them, and the window's figures those the lines say (under valgrind
#      256 KiB, and no RSS compared).
#   2. A results.json whose figures are 1e308, -1e308, an infinity's worth of sums and
#      denormals, beside series.csv rows of inf, nan and 1e308: report and compare finish
#      in seconds with a bounded output.
#   3. A results.json of 10^6 keys, and one past the size loopbench reads: handled within a
#      bounded RSS, or refused with the documented message and status.
source "$(dirname "$0")/lib.sh"
: "${PEAKRSS:?set PEAKRSS to the peakrss helper}"

# size FILE: its bytes.
size() { stat -c %s "$1"; }

# 5 MiB of "loop: a=1\n"; under valgrind, whose loopbench reads some 50 times slower, 256 KiB
# (its peak RSS is valgrind's: what is checked there is that nothing is read amiss), and
# `slow` seconds for a report or compare that takes a second.
lines=524288 slow=10
[ -z "${LOOPBENCH_VALGRIND:-}" ] || { lines=26214 slow=60; }
# A target that is ready at once, logs LINES marker lines "loop: a=1" in one burst 1.5 s
# later (a second into the window), then a health line a second.
cat >"$TMP/target.sh" <<'SH'
#!/bin/sh
echo ready
sleep 1.5
if [ "$LINES" -gt 0 ]; then yes 'loop: a=1' | head -n "$LINES"; fi
while :; do echo 'loop: lag=3ms cpu=1.5%'; sleep 1; done
SH
chmod +x "$TMP/target.sh"
cat >"$TMP/burst.json" <<JSON
{ "name": "burst", "command": ["$TMP/target.sh"],
  "knob": { "name": "lines", "values": ["0", "$lines"], "env": "LINES" },
  "metrics": { "health": [ { "key": "lag" }, { "key": "a" } ] },
  "ready": { "log": "^ready$", "timeout": 10 }, "stop": { "grace": 1 } }
JSON

# campaign NAME SETTING REPEATS: a campaign under peakrss; sets kib to loopbench's peak.
campaign() {
  local name=$1
  local status=0
  timeout 60 "$PEAKRSS" "$TMP/$name.peak" "$LOOPBENCH" run "$TMP/burst.json" -s "$2" -n "$3" \
    -w 0.5 -t 4 -o "$TMP/$name" -q >"$TMP/$name.out" 2>"$TMP/$name.err" || status=$?
  if [ "$status" != 0 ]; then
    fail "campaign $name: status $status: $(tail -n 3 "$TMP/$name.err")"
    kib=0
    return
  fi
  kib=$(jq '.loopbench.max_rss_kib' "$TMP/$name/results.json")
}

echo "== 1. $((lines * 10)) bytes of marker lines in one window"
campaign quiet 0 2
quiet_kib=$kib
campaign flood "$lines" 1
flood_kib=$kib
echo "loopbench peak RSS: $quiet_kib KiB without the lines, $flood_kib KiB with $lines of them"
doc=$TMP/flood/results.json
if [ -s "$doc" ]; then
  check "the burst reached the log whole" \
    [ "$(grep -c '^loop: a=1$' "$TMP"/flood/runs/*/stdout.log)" = "$lines" ]
  if [ -n "${LOOPBENCH_VALGRIND:-}" ]; then
    echo "skip: peak RSS under valgrind is valgrind's"
  else
    check "peak RSS within 2x of the same window without the lines" lt "$flood_kib" $((2 * quiet_kib))
  fi
  check "every marker line of the window counted" \
    jq -e --argjson n "$lines" '.runs[0].metrics.a.windows == $n' "$doc"
  check "their figures as the lines say" \
    jq -e --argjson n "$lines" '.runs[0].metrics.a | .mean == 1 and .min == 1 and .max == 1 and .sum == $n' "$doc"
  check "the window's line count holds them and the health lines" \
    jq -e --argjson n "$lines" '.runs[0].windows >= $n and .runs[0].windows <= $n + 5' "$doc"
  check "nothing dropped by the bounds" jq -e '.runs[0] | has("health_dropped") | not' "$doc"
fi

echo "== 2. absurd figures in results.json and series.csv"
absurd=$TMP/absurd
if [ -s "$TMP/quiet/results.json" ]; then
  mkdir "$absurd"
  touch "$absurd/.handmade" # made by jq: lib.sh does not expect it to read back as written
  cp -r "$TMP"/quiet/runs "$absurd/"
  jq '.runs[0].cpu_percent = 1e308 | .runs[1].cpu_percent = 1.7976931348623157e308
      | .runs[0].cpu_seconds = 1e308 | .runs[1].steal_percent = -1e308
      | .runs[0].metrics.lag = {type: "duration_ms", windows: 3, mean: 1e308, min: 5e-324,
                                max: 1.7976931348623157e308, sum: 1.7976931348623157e308}
      | .runs[1].metrics.lag.mean = -1e308 | .runs[1].metrics.cpu.max = 4.9e-324
      | del(.summary)' "$TMP/quiet/results.json" >"$absurd/results.json"
  for csv in "$absurd"/runs/*/series.csv; do
    printf '1,inf,0\n2,nan,0\ninf,5,0\n3,1e308,0\n1e308,1e999,0\n4,-1e308,0\n5,4.9e-324,0\n' >>"$csv"
  done
  # compare: its Mermaid chart's log axis over the runs' medians (an infinity).
  start=$(date +%s%N)
  status=0
  timeout "$slow" "$LOOPBENCH" compare "$TMP/quiet" "$absurd" >"$TMP/compare.out" 2>"$TMP/compare.err" || status=$?
  took=$((($(date +%s%N) - start) / 1000000))
  bytes=$(size "$TMP/compare.out")
  echo "compare: status $status in $took ms, $bytes bytes written; $(head -c 300 "$TMP/compare.err")"
  check "compare finishes (not killed by the timeout)" [ "$status" != 124 ]
  check "compare exits 0 or 1 (a verdict)" [ "$status" -le 1 ]
  check "compare writes under 1 MB" lt "$bytes" 1000000
  # report: its table, charts and plots. gnuplot may refuse to scale an axis to 1e308
  # (exit 1, naming its log); the report is written regardless.
  start=$(date +%s%N)
  status=0
  timeout "$slow" "$LOOPBENCH" report "$absurd" -o "$absurd/report.md" --plots "$absurd/plots" \
    >"$TMP/report.out" 2>"$TMP/report.err" || status=$?
  took=$((($(date +%s%N) - start) / 1000000))
  bytes=$(($(size "$TMP/report.out") + $(du -sb "$absurd/report.md" "$absurd/plots" 2>/dev/null | awk '{ n += $1 } END { print n + 0 }')))
  echo "report: status $status in $took ms, $bytes bytes written; $(head -c 300 "$TMP/report.err")"
  check "report finishes (not killed by the timeout)" [ "$status" != 124 ]
  check "report exits 0, or 1 saying gnuplot failed" bash -c "[ $status = 0 ] ||
    { [ $status = 1 ] && grep -q '^loopbench: gnuplot exited with status' '$TMP/report.err'; }"
  check "report writes under 1 MB" lt "$bytes" 1000000
  check "the report is written" [ -s "$absurd/report.md" ]
  check "the series rows of inf and nan are not plotted" \
    bash -c "! grep -qiw -e inf -e nan '$absurd/plots/cpu-time.dat'"
  check "the finite ones are" grep -qx '3 1e+308' "$absurd/plots/cpu-time.dat"
fi

echo "== 3. results.json of 10^6 keys, and of the most keys read"
# keys FILE COUNT: the quiet campaign's document with COUNT keys more at its top.
keys() {
  mkdir -p "$(dirname "$1")"
  touch "$(dirname "$1")/.handmade"
  python3 - "$TMP/quiet/results.json" "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
with open(sys.argv[2], "w") as out:
    out.write(json.dumps(doc)[:-1])
    for i in range(int(sys.argv[3])):
        out.write(', "k%d": %d' % (i, i))
    out.write("}")
PY
}
# report_peak DIR: `report -f json` of DIR under peakrss; sets status and peak (KiB).
report_peak() {
  status=0
  timeout 20 "$PEAKRSS" "$TMP/peak" "$LOOPBENCH" report "$1" -f json --no-plots \
    >"$TMP/keys.out" 2>"$TMP/keys.err" || status=$?
  peak=$(cat "$TMP/peak" 2>/dev/null || echo 99999999)
  echo "report of $(size "$1/results.json") bytes: status $status, peak RSS $peak KiB; $(head -c 300 "$TMP/keys.err")"
}
if [ -s "$TMP/quiet/results.json" ]; then
  keys "$TMP/million/results.json" 1000000
  report_peak "$TMP/million"
  check "10^6 keys (18 MB) are refused (exit 2)" [ "$status" = 2 ]
  check "... naming the file and the limit" grep -q \
    "^loopbench: '$TMP/million/results.json': [0-9]* bytes, expected a results.json of at most 16 MiB$" \
    "$TMP/keys.err"
  [ -n "${LOOPBENCH_VALGRIND:-}" ] || check "... before parsing it (peak under 64 MiB)" lt "$peak" 65536
  # The most keys a file under the limit holds: read, within a bounded RSS (not under
  # valgrind, where parsing them takes minutes).
  if [ -z "${LOOPBENCH_VALGRIND:-}" ]; then
    keys "$TMP/most/results.json" 850000
    report_peak "$TMP/most"
    check "a file just under the limit ($(size "$TMP/most/results.json") bytes) is read (exit 0)" [ "$status" = 0 ]
    check "... within 512 MiB" lt "$peak" 524288
  fi
fi

[ "$fails" -eq 0 ]
