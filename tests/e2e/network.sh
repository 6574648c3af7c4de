#!/usr/bin/env bash
# Round trips and HTTP end to end: a refshard campaign at idle wait 0 and 2 with the rtt
# probe on its echo service (per run and merged per setting, in results.json, the table,
# the report's headline, its round-trip table and plot); readiness by HTTP against a
# real local HTTP server, and a timeout naming the URL. See docs/network.md.
source "$(dirname "$0")/lib.sh"

# A private copy of the rtt profile on a free port.
port=$(free_port)
mkdir -p "$TMP/ref"
cp "$SOURCE_ROOT/profiles/refshard-rtt.json" "$SOURCE_ROOT/profiles/refshard-rtt.config.json" "$TMP/ref/"
cp "$REFSHARD" "$TMP/ref/refshard"
sed -i "s|{loopbench_dir}/refshard|./refshard|; s|127.0.0.1:25930|127.0.0.1:$port|g" "$TMP/ref/refshard-rtt.json"
sed -i "s|127.0.0.1:25930|127.0.0.1:$port|" "$TMP/ref/refshard-rtt.config.json"
cp "$TMP/ref/refshard-rtt.config.json" "$TMP/original.json"

# --- 1. a campaign with round trips -----------------------------------------------------
out=$TMP/c
rc=0
"$LOOPBENCH" run "$TMP/ref/refshard-rtt.json" -n 2 -w 0.5 -t 2 -o "$out" >"$TMP/run.out" 2>"$TMP/run.err" || rc=$?
cat "$TMP/run.out"
check "campaign with the rtt probe exits 0" [ "$rc" -eq 0 ]
check "results.json still matches the schema" jq -e -f "$SOURCE_ROOT/tests/data/results-schema.jq" "$out/results.json"
jq -r '.runs[] | "run \(.setting)-\(.repeat): rtt \(.rtt.requests | tostring)"' "$out/results.json"
if [ -z "${LOOPBENCH_VALGRIND:-}" ]; then
  # The requests still in flight when the window closes all came due within the oldest's
  # wait (at 200/s, at most 200 a second of it, and one): a loaded host that stalls the
  # target at the end makes that wait longer, never makes one go missing (a lost reply
  # would be a timeout).
  check "every run: ~400 requests at 200/s over 2 s, all completed but those in flight at the end, none failed" jq -e '
    all(.runs[]; .rtt.requests as $q | $q.scheduled >= 380 and $q.scheduled <= 420
        and $q.completed + $q.unfinished == $q.scheduled
        and ($q.unfinished == 0) == ($q.unfinished_oldest_us == 0)
        and $q.unfinished <= 2 + 200 * $q.unfinished_oldest_us / 1e6
        and $q.unfinished_oldest_us < 1e6
        and $q.errors == 0 and $q.timeouts == 0)' "$out/results.json"
else # valgrind runs one thread at a time: the probe's schedule slips; no reply may be wrong
  check "every run: requests sent, no wrong reply" jq -e \
    'all(.runs[]; .rtt.requests.scheduled > 100 and .rtt.requests.errors == 0)' "$out/results.json"
fi
check "  ... percentiles in order, in microseconds, with the histogram they come from" jq -e '
  all(.runs[]; .rtt.latency_us as $l | $l.min > 0 and $l.min <= $l.p50 and $l.p50 <= $l.p90
      and $l.p90 <= $l.p99 and $l.p99 <= $l.p999 and $l.p999 <= $l.max
      and .rtt.histogram.count == $l.count and .rtt.histogram.unit == "ns")' "$out/results.json"
check "  ... connection setups timed (5/s)" jq -e 'all(.runs[]; .rtt.setup.requests.completed >= 8)' "$out/results.json"
check "  ... the probe's own CPU reported, apart from the target's" jq -e \
  'all(.runs[]; .rtt.probe_cpu_seconds > 0 and .rtt.probe_cpu_seconds < 1)' "$out/results.json"
check "per setting: the runs' histograms added (counts add up, max is the runs' max)" jq -e '
  . as $d | all($d.summary[]; .setting as $s
    | .rtt.latency_us.count == ([$d.runs[] | select(.setting == $s) | .rtt.latency_us.count] | add)
    and .rtt.latency_us.max == ([$d.runs[] | select(.setting == $s) | .rtt.latency_us.max] | max))' \
  "$out/results.json"
check "RTT p50, p99 and failures are health keys of every run" jq -e '
  all(.runs[]; .metrics.rtt_p50_ms.type == "duration_ms" and .metrics.rtt_p99_ms.windows == 1
      and .metrics.rtt_failed.max == 0)' "$out/results.json"
check "the summary table has the RTT columns" grep -q "RTT p50.*RTT p99.*RTT failures" "$TMP/run.out"
check "config byte-identical afterwards" cmp -s "$TMP/ref/refshard-rtt.config.json" "$TMP/original.json"

rc=0
"$LOOPBENCH" report "$out" --plots "$out/plots" >"$TMP/report.md" 2>"$TMP/report.err" || rc=$?
check "report exits 0" [ "$rc" -eq 0 ]
check "the headline gives RTT p99 the gate's word" grep -Eq \
  'RTT p99:? (no change|inconclusive|regressed|improved|cannot test)' "$TMP/report.md"
check "a round-trip table per setting, from the merged histograms" bash -c "
  grep -q '^| idle wait (ms) | requests | failed | p50 | p90 | p99 | p99.9 | max |' '$TMP/report.md' &&
  grep -Eq '^\| 0 \(baseline\) \| [78][0-9]{2} \| 0 \|' '$TMP/report.md' && grep -Eq '^\| 2 \| [78][0-9]{2} \| 0 \|' '$TMP/report.md'"
if command -v gnuplot >/dev/null; then
  check "a latency percentile plot, drawn where asked" test -s "$out/plots/latency.svg"
fi

# --resume keeps a run's round trips: the merged figures are unchanged by a resume.
jq -c '.summary | map(.rtt)' "$out/results.json" >"$TMP/rtt-before.json"
check "a finished campaign resumed: nothing to run, exit 0" "$LOOPBENCH" run --resume "$out" -q
check "  ... the merged round trips read back from results.json are the same" bash -c \
  "jq -c '.summary | map(.rtt)' '$out/results.json' | cmp -s - '$TMP/rtt-before.json'"

# --- 2. a probe that cannot connect fails the run, naming the address --------------------
dead=$(free_port)
jq --arg a "127.0.0.1:$dead" '.rtt.tcp = $a' "$TMP/ref/refshard-rtt.json" >"$TMP/ref/dead.json"
rc=0
"$LOOPBENCH" run "$TMP/ref/dead.json" -s 2 -n 1 -w 0 -t 1 -o "$TMP/dead" >/dev/null 2>"$TMP/dead.err" || rc=$?
check "an rtt address nothing listens on fails the run (exit 1)" [ "$rc" -eq 1 ]
check "  ... naming the address" grep -q "round-trip probe could not start: rtt: cannot connect to 127.0.0.1:$dead" "$TMP/dead.err"
check "  ... config byte-identical" cmp -s "$TMP/ref/refshard-rtt.config.json" "$TMP/original.json"
check "  ... no process of the target left" no_process_from "$TMP"

# --- 3. readiness by HTTP ----------------------------------------------------------------
web=$(free_port)
mkdir -p "$TMP/www" && echo ok >"$TMP/www/health"
cat >"$TMP/http.json" <<JSON
{ "name": "web", "command": ["python3", "-m", "http.server", "$web", "--bind", "127.0.0.1",
  "--directory", "$TMP/www"],
  "knob": { "name": "unused", "values": ["a"], "env": "UNUSED" },
  "ready": { "http": "http://127.0.0.1:$web/health", "timeout": 10 }, "stop": { "grace": 2 } }
JSON
rc=0
"$LOOPBENCH" run "$TMP/http.json" -n 1 -w 0 -t 0.5 -o "$TMP/web" -q >/dev/null 2>"$TMP/web.err" || rc=$?
check "ready when GET answers 2xx: the run completes (exit 0)" [ "$rc" -eq 0 ]
check "  ... ready within a few seconds of the start" jq -e '.runs[0].ready_seconds < 5' "$TMP/web/results.json"
sed "s|/health\"|/missing\"|; s|\"timeout\": 10|\"timeout\": 1|" "$TMP/http.json" >"$TMP/http404.json"
rc=0
"$LOOPBENCH" run "$TMP/http404.json" -n 1 -w 0 -t 0.5 -o "$TMP/web404" >/dev/null 2>"$TMP/web404.err" || rc=$?
check "a URL answering 404 never makes it ready: exit 1" [ "$rc" -eq 1 ]
check "  ... the message names the rule and the URL" \
  grep -q "not ready after 1 s: no 2xx answer from GET http://127.0.0.1:$web/missing" "$TMP/web404.err"
check "  ... no process left" no_process_from "$TMP"

# --- 4. metrics from an HTTP endpoint ----------------------------------------------------
# A target whose counter grows 100 a second and whose gauge holds 42.
cat >"$TMP/metrics_server.py" <<'PY'
import http.server, sys, time
start = time.monotonic()
class Metrics(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ticks = int((time.monotonic() - start) * 100)
        body = ("# TYPE ticks_total counter\nticks_total %d\n"
                "# TYPE temperature gauge\ntemperature{room=\"a\"} 42\n" % ticks).encode()
        self.send_response(200 if self.path == "/metrics" else 404)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Metrics).serve_forever()
PY
mport=$(free_port)
cat >"$TMP/metrics.json" <<JSON
{ "name": "metrics", "command": ["python3", "$TMP/metrics_server.py", "$mport"],
  "knob": { "name": "unused", "values": ["a", "b"], "env": "UNUSED" },
  "ready": { "http": "http://127.0.0.1:$mport/metrics", "timeout": 10 },
  "http_metrics": { "url": "http://127.0.0.1:$mport/metrics", "interval": 0.5,
    "values": [ { "key": "ticks", "series": "ticks_total", "label": "ticks", "better": "higher" },
                { "key": "temp", "series": "temperature{room=\"a\"}" } ] },
  "stop": { "grace": 2 } }
JSON
rc=0
"$LOOPBENCH" run "$TMP/metrics.json" -n 2 -w 0.2 -t 2 -o "$TMP/m" >"$TMP/m.out" 2>"$TMP/m.err" || rc=$?
cat "$TMP/m.out"
check "a campaign scraping an HTTP metrics endpoint exits 0" [ "$rc" -eq 0 ]
check "  ... the counter differenced over the window: ~100/s" jq -e '
  all(.runs[]; .endpoint_metrics.values.ticks | .kind == "counter" and .rate_per_s > 85
      and .rate_per_s < 115 and .delta > 150 and (.reset | not))' "$TMP/m/results.json"
check "  ... the gauge sampled at the edges and every 0.5 s between" jq -e '
  all(.runs[]; .endpoint_metrics.values.temp | .kind == "gauge" and .mean == 42 and .min == 42
      and .samples >= 4)' "$TMP/m/results.json"
check "  ... every scrape answered" jq -e \
  'all(.runs[]; .endpoint_metrics.failed_scrapes == 0 and .endpoint_metrics.scrapes >= 4)' "$TMP/m/results.json"
check "  ... beside the log's keys, as health keys with their labels" jq -e '
  all(.runs[]; .metrics.ticks.mean > 85 and .metrics.temp.mean == 42)
  and ([.profile.health[].key] == ["ticks", "temp"])' "$TMP/m/results.json"
check "  ... in the summary table" bash -c "grep -Eq '^\| unused +\|.*\| +ticks \| +temp \| runs \|\$' '$TMP/m.out' &&
  grep -Eq '^\| a \(baseline\) +\|.*\| +42\.0 \| +2 \|\$' '$TMP/m.out'"
check "  ... the file still matches the schema" jq -e -f "$SOURCE_ROOT/tests/data/results-schema.jq" "$TMP/m/results.json"
check "  ... no process left" no_process_from "$TMP"

# --- 5. the Debian server example: Redis PING/+PONG (when redis-server is installed) -----
if command -v redis-server >/dev/null; then
  rport=$(free_port)
  sed "s/6399/$rport/g" "$SOURCE_ROOT/profiles/redis.json" >"$TMP/redis.json"
  rc=0
  "$LOOPBENCH" run "$TMP/redis.json" -n 1 -w 0.5 -t 1 -o "$TMP/redis" -q >/dev/null 2>"$TMP/redis.err" || rc=$?
  check "profiles/redis.json: a campaign exits 0, PING answered +PONG, none failed" bash -c "[ $rc -eq 0 ] &&
    jq -e 'all(.runs[]; .rtt.requests.completed > 150 and .rtt.requests.errors == 0)' '$TMP/redis/results.json' >/dev/null"
else
  echo "skip: profiles/redis.json (redis-server is not installed)"
fi

[ "$fails" -eq 0 ]
