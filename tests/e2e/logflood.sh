#!/usr/bin/env bash
# A target flooding its log past --log-limit: the kept stdout.log stays within the limit
# (and a marker line), every health line of the window is scraped though most of the log
# is dropped, the dropped bytes are recorded (written - kept, as the target counts what it
# wrote) and the report's footnote names the run. A quiet run under the default limit
# keeps its log whole and records nothing dropped. See docs/scraping.md.
source "$(dirname "$0")/lib.sh"

# 60 MB/s of 100-byte filler lines with a health line "loop: n=K" every 100 ms; ready
# once its first line is read from the stream.
cat >"$TMP/flood.json" <<JSON
{ "name": "flood", "command": ["$FLOODER"],
  "knob": { "name": "mbps", "values": ["60"], "env": "FLOOD_MBPS" },
  "ready": { "log": "^flooder: ready$", "timeout": 10 }, "stop": { "grace": 2 } }
JSON

limit=1048576
"$LOOPBENCH" run "$TMP/flood.json" --log-limit 1M -n 1 -w 0.5 -t 3 -o "$TMP/flood" -q \
  >"$TMP/flood.out" 2>"$TMP/flood.err" || { fail "the flooded run: $(cat "$TMP/flood.err")"; }
run=$(ls -d "$TMP"/flood/runs/*/)
doc=$TMP/flood/results.json
log=$run/stdout.log
size=$(stat -c %s "$log")
marker=$(grep -a '^\[loopbench: [0-9]* bytes dropped here' "$log" || true)
said=$(cat "$run/stderr.log")
wrote=$(sed -n 's/^flooder: wrote \([0-9]*\) bytes .*/\1/p' "$run/stderr.log")
read -r bytes kept dropped lim < <(jq -r '.runs[0].logs | "\(.stdout.bytes) \(.stdout.kept) \(.stdout.dropped) \(.limit)"' "$doc")
echo "target: $said"
echo "stdout: written $bytes, kept $kept, dropped $dropped (limit $lim); stdout.log $size bytes"
check "the limit is recorded" [ "$lim" = "$limit" ]
check "the target wrote far more than the limit" gt "$bytes" $((50 * limit))
check "loopbench counted every byte the target wrote ($wrote)" [ "$bytes" = "$wrote" ]
check "it kept the limit" [ "$kept" = "$limit" ]
check "dropped = written - kept" [ "$dropped" = $((bytes - kept)) ]
# The marker line: its own, behind a newline when the head ended inside a line.
check "stdout.log is the kept bytes and the marker line" \
  between $((size - kept - ${#marker})) 0 3
check "the marker line says what was dropped" [ "$marker" = "[loopbench: $dropped bytes dropped here: the log limit keeps the first and the last $((limit / 2)) bytes]" ]
check "the head is kept: the ready line first" [ "$(head -n 1 "$log")" = "flooder: ready" ]
check "stderr was kept whole" jq -e '.runs[0].logs.stderr.dropped == 0' "$doc"

# Every health line of the window: the counts n seen run without a gap from min to max,
# and the window of 3 s holds 30 of the target's 100 ms lines (one more or less at the edges).
read -r windows n_windows lo hi < <(jq -r '.runs[0] | "\(.windows) \(.metrics.n.windows) \(.metrics.n.min) \(.metrics.n.max)"' "$doc")
echo "health lines scraped: $windows (n = $lo .. $hi)"
check "each health line counted once" [ "$windows" = "$n_windows" ]
check "no health line of the window missed" [ "$windows" = $((hi - lo + 1)) ]
health=$(sed -n 's/.* bytes and \([0-9]*\) health lines .*/\1/p' "$run/stderr.log")
check "the last lines the target wrote in the window were scraped" between "$hi" $((health - 3)) $((health + 1))
# The window of 3 s holds 30 of the target's 100 ms lines (one more or less at the edges);
# under valgrind loopbench reads too slowly for 60 MB/s, and the full pipe slows the
# target down: fewer lines, none of them lost.
if [ -z "${LOOPBENCH_VALGRIND:-}" ]; then
  check "the window's 30 lines, within the edges" between "$windows" 28 32
else
  check "the window's lines, however few the slowed target wrote" gt "$windows" 5
fi
check "the results read as the schema says" jq -e -f "$SOURCE_ROOT/tests/data/results-schema.jq" "$doc"

"$LOOPBENCH" report "$TMP/flood" >"$TMP/report.md" 2>"$TMP/report.err"
check "the report's footnote names the cut run" \
  grep -q 'run logged past the log limit.*mbps `60` #1 stdout: [0-9.]* of [0-9.]* MiB dropped (limit 1.0 MiB)' "$TMP/report.md"

# A quiet run (health lines only) under the default limit: nothing dropped, nothing noted.
"$LOOPBENCH" run "$TMP/flood.json" --settings 0 -n 1 -w 0 -t 1 -o "$TMP/quiet" -q \
  >"$TMP/quiet.out" 2>"$TMP/quiet.err" || fail "the quiet run: $(cat "$TMP/quiet.err")"
qdoc=$TMP/quiet/results.json
qlog=$(ls -d "$TMP"/quiet/runs/*/)stdout.log
check "the default limit is 64 MiB" jq -e '.runs[0].logs.limit == 67108864' "$qdoc"
check "nothing dropped under it" jq -e '.runs[0].logs | .stdout.dropped == 0 and .stdout.kept == .stdout.bytes' "$qdoc"
check "the quiet log kept whole" [ "$(stat -c %s "$qlog")" = "$(jq '.runs[0].logs.stdout.bytes' "$qdoc")" ]
"$LOOPBENCH" report "$TMP/quiet" >"$TMP/quiet.md" 2>/dev/null
check "no cut noted in its report" bash -c "! grep -q 'log limit' '$TMP/quiet.md'"

[ "$fails" -eq 0 ]
