# The documented shape of results.json (docs/results.md) as a jq predicate: every key the
# document lists, with its type. `jq -e -f results-schema.jq results.json` exits 0 only
# when the file conforms.
def str: type == "string";
def num: type == "number";
def strornull: type == "string" or type == "null";
def numornull: type == "number" or type == "null";
def stats: type == "object" and (.median|numornull) and (.min|numornull) and (.max|numornull)
  and (.mean|numornull) and (.sd|numornull);
def stream: (.bytes|num) and (.kept|num) and (.dropped|num) and .dropped == .bytes - .kept;
def aggregate: (.type | IN("number", "percent", "ratio", "duration_ms", "flag"))
  and (.windows|num) and (.mean|numornull) and (.min|numornull) and (.max|numornull)
  and (.sum|numornull) and (if .type == "ratio" then (.total_sum|numornull) else true end);

(.schema | IN("loopbench/results/1", "loopbench/results/2"))
and (.loopbench | (.version|str) and (.platform|str) and (.cpu_seconds|num) and (.max_rss_kib|num))
and (.command_line|str)
and (.profile | (.name|str) and (.path|str) and (.hash|startswith("fnv1a64:"))
  and (.knob | (.name|str) and (.label|str) and (.values|type == "array") and (.baseline|str))
  and (.marker|str) and (.health|type == "array")
  and all(.health[]; (.key|str) and (.label|str) and (.better|IN("lower", "higher"))
    and (.must_be_zero|type == "boolean")))
and (.host | (.hostname|strornull) and (.os|strornull) and (.kernel|strornull) and (.arch|strornull)
  and (.cpu_model|strornull) and (.logical_cpus|num) and (.mem_total_bytes|num)
  and (.clock_resolution_ns|num)
  and (.loadavg|type == "array" and length == 3) and (.clocksource|strornull)
  and (.governor|strornull) and (.virtualization|strornull))
and (.campaign | (.settings|type == "array") and (.baseline|str) and (.repeat|num)
  and ((.variants // [])|type == "array") and all((.variants // [])[]; (.name|str) and (.dir|str))
  and (.warmup_seconds|num) and (.sample_seconds|num) and (.interval_ms|num)
  and (if has("log_limit") then .log_limit|num else true end)
  and (.order|IN("interleave", "random", "grouped")) and (.seed|num)
  and (.cpu_source_requested|str) and (.started_at|str) and (.finished_at|strornull)
  and (.state|IN("running", "finished", "interrupted")) and (.interrupted_by|strornull)
  and all(.plan[]; (.setting|str) and (.repeat|num) and (.dir|str))
  and all(.resumed_at[]; str))
and all(.runs[];
  (.setting|str) and (.repeat|num) and (.status|IN("ok", "failed", "interrupted"))
  and (.started_at|strornull) and (.cpu_seconds|numornull) and (.wall_seconds|numornull)
  and (.cpu_percent|numornull) and (.metrics|type == "object") and all(.metrics[]; aggregate)
  and (.dir|str) and (.stdout_log|str) and (.stderr_log|str) and (.ready_seconds|num)
  and (.log_levels | (.WRN|num) and (.ERR|num) and (.FTL|num))
  and (.exit | (.exited_on_its_own|type == "boolean") and (.killed|type == "boolean")
    and (.containment | . == null or IN("cgroup2", "process-group", "job-object")))
  and (.failure|strornull) and (.log_tail|strornull)
  and (if .status == "ok" then (.cpu_source|str) and (.cpu_resolution_ns|num)
    and (.unreliable|type == "boolean") and (.voluntary_ctxsw|num) and (.involuntary_ctxsw|num)
    and (.voluntary_per_s|num) and (.rss_peak_bytes|num) and (.steal_percent|num)
    and (.series|str) and (.window_start|str) and (.window_end|str) and (.windows|num)
    and (.others_cpu_percent|num) and (.loopbench_cpu_seconds|num)
    and (.noise | (.steal|type == "boolean") and (.other_processes|type == "boolean")
      and (.outlier|type == "boolean"))
    else true end)
  and (if has("logs") then .logs | (.limit|num) and (.stdout|stream) and (.stderr|stream)
    else true end)
  and (if has("rtt") then .rtt | (.requests | (.scheduled|num) and (.completed|num)
      and (.errors|num) and (.timeouts|num)) and (.probe_cpu_seconds|num)
      and (.latency_us == null or (.latency_us | (.p50|num) and (.p99|num) and (.max|num)))
      and .histogram.unit == "ns" and (.histogram.counts|type == "array")
    else true end)
  and (if has("endpoint_metrics") then .endpoint_metrics | (.url|str) and (.scrapes|num)
      and (.failed_scrapes|num) and (.error|strornull) and all(.values[];
        (.kind|IN("counter", "gauge")) and (.found|type == "boolean") and (.end|numornull)
        and (.missing|strornull))
    else true end))
and (.warnings|type == "array") and all(.warnings[]; str)
and all(.summary[];
  (.setting|str) and (.baseline|type == "boolean") and (.runs|num) and (.runs_attempted|num)
  and (.cpu_percent|stats) and (.cpu_ratio|numornull) and (.voluntary_per_s|stats)
  and (.unreliable_windows|num) and (.health|type == "object") and all(.health[]; stats)
  and (if has("rtt") then .rtt | (.runs|num) and (.scheduled|num) and (.errors|num)
      and (.timeouts|num) and (.latency_us == null or (.latency_us.p99|num)) else true end))
