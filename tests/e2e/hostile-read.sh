#!/usr/bin/env bash
# Hostile pull request, what is read back (docs/reliability.md): a campaign directory made
# elsewhere, read by report, compare, compare --pool and history.
#   1. a terminal or workflow payload (ESC, OSC 8, BEL, CR/LF, a C1 CSI, `::error`) in any
#      string of a results.json reaches neither stdout nor stderr raw;
#   2. every file read back (results.json, runs/*/series.csv) is read through no link, is a
#      regular file (a FIFO hangs nothing) and has a size cap: refused with a message naming
#      the file and the cap, at once;
#   3. the plan is matched to the runs in linear time, and a campaign past the caps on runs,
#      settings and variants is refused up front;
#   4. what one command keeps of each campaign does not hold a profile's unknown keys, and
#      what it reads in all has a cap;
#   5. a journal, and a config file that a target replaced, are read the same way by restore.
source "$(dirname "$0")/lib.sh"
: "${PEAKRSS:?run through meson test}"

variants_campaign "$TMP/real"
# Under valgrind, some 30 times slower, what is read whole is a tenth as large, and given
# ten times as long: what valgrind checks there is that nothing is read amiss.
at_cap=100000 limit=20
[ -z "${LOOPBENCH_VALGRIND:-}" ] || { at_cap=10000 limit=200; }

# raw FILE...: a byte a terminal acts on (C0 but tab and newline, DEL, a C1 control in
# UTF-8) or a line that GitHub Actions reads as a workflow command (`::` at its start).
raw() { LC_ALL=C grep -a -q -P '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|^::' "$@"; }

# --- 1. a payload in every string of a results.json ---------------------------------------
# The real document, with what other campaigns record besides: a health key's aggregate
# (metrics.KEY.type), a round-trip histogram (histogram.unit), why a window was unsteady,
# pinned CPUs, a runner, a sequential campaign's looks, an interrupt and a resume, so that
# every string a reader parses is there to carry the payload.
jq '.runs[0].metrics = {"slots": {"type": "number", "windows": 1, "mean": 1, "min": 1,
      "max": 1, "sum": 1}}
    | .runs[0].rtt = {"histogram": {"unit": "ns", "sub_bucket_bits": 7, "max_value": 4398046511103,
      "count": 0, "clamped": 0, "min": 0, "max": 0, "sum": 0, "counts": []}}
    | .runs[0].steady = false | .runs[0].unsteady = "a trend of 5% a second" | .runs[0].cpus = "0"
    | .campaign.cpus = {"targets": "0", "loopbench": "1"}
    | .host.runner = {"image_os": "ubuntu24", "image_version": "20250101.1", "name": "runner 1"}
    | .campaign.sequential = {"max": 5, "stopped": "cap", "looks": [{"round": 3, "undecided": 1}]}
    | .campaign.interrupted_by = "SIGINT" | .campaign.resumed_at = [.campaign.started_at]' \
  "$TMP/real/results.json" >"$TMP/base.json"
payload=$(printf 'x\033[31mred\033]8;;https://evil.example/\033\\link\033]8;;\033\\\007\r\n::error title=pwned::owned\302\233 \n::warning::y')
mkdir -p "$TMP/ctl" "$TMP/clean"
cp -r "$TMP/real/runs" "$TMP/ctl/"
cp -r "$TMP/real/runs" "$TMP/clean/"
cp "$TMP/base.json" "$TMP/clean/results.json"
touch "$TMP/ctl/.handmade" "$TMP/clean/.handmade"
# Every string's path; of arrays whose elements have one shape (runs, plan...), the first.
mapfile -t paths < <(jq -c '[paths(type == "string")][] | select(all(.[]; type != "number" or . == 0))' \
  "$TMP/base.json")
# Keys that messages name too: a health key's, a metric's
paths+=('"key:metrics"' '"key:health"')
# mutate PATH: ctl/results.json is base.json with PATH's string (or key) replaced by the payload.
mutate() {
  case "$1" in
    '"key:metrics"') jq --arg v "$payload" '.runs[0].metrics = {($v): .runs[0].metrics.slots}' ;;
    '"key:health"') jq --arg v "$payload" '.profile.health[0].key = $v' ;;
    *) jq --argjson p "$1" --arg v "$payload" 'setpath($p; $v)' ;;
  esac <"$TMP/base.json" >"$TMP/ctl/results.json"
}
declare -A leaked=()
commands=(report compare pool history)
# read_with NAME: that command on ctl (and the clean copy beside it where it takes two);
# output in ctl.out and ctl.err.
read_with() {
  case "$1" in
    report) "$LOOPBENCH" report "$TMP/ctl" --no-plots ;;
    compare) "$LOOPBENCH" compare "$TMP/ctl" ;;
    pool) "$LOOPBENCH" compare --pool "$TMP/ctl" "$TMP/clean" ;;
    history) "$LOOPBENCH" history "$TMP/clean" "$TMP/ctl" ;;
  esac >"$TMP/ctl.out" 2>"$TMP/ctl.err" || true
}
for path in "${paths[@]}"; do
  mutate "$path"
  for cmd in "${commands[@]}"; do
    read_with "$cmd"
    if raw "$TMP/ctl.out" "$TMP/ctl.err"; then
      leaked[$cmd]+=" $(jq -r 'if type == "array" then map(tostring) | join(".") else . end' <<<"$path")"
    fi
  done
done
echo "the payload went into ${#paths[@]} strings of a results.json, each read by ${commands[*]}"
for cmd in "${commands[@]}"; do
  check "$cmd: no raw control byte and no line starting '::' on stdout or stderr" [ -z "${leaked[$cmd]:-}" ]
  [ -z "${leaked[$cmd]:-}" ] || echo "  ... from:${leaked[$cmd]}"
done

# --- 2. files read back: no link, no FIFO, a size cap ---------------------------------------
# fresh NAME: a copy of the real campaign in $TMP/NAME, handmade.
fresh() {
  rm -rf "${TMP:?}/$1"
  cp -r "$TMP/real" "$TMP/$1"
  touch "$TMP/$1/.handmade"
}
series=$(jq -r '.runs[0].dir' "$TMP/real/results.json")/series.csv
# reads NAME ARGS...: loopbench ARGS within 20 s; sets rc (124: still reading), and the
# first line of stderr in said.
reads() {
  local name=$1
  shift
  rc=0
  timeout "${limit:-20}" "$LOOPBENCH" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || rc=$?
  said=$(head -n 1 "$TMP/$name.err")
  echo "  $name: exit $rc: $said"
}
fresh zero
ln -sf /dev/zero "$TMP/zero/$series"
reads zero report "$TMP/zero" --no-plots
check "a series.csv linked to /dev/zero: report refuses it (exit 2) at once" [ "$rc" -eq 2 ]
check "  ... naming the file" grep -q -F "$series" "$TMP/zero.err"
fresh fifo
rm "$TMP/fifo/$series"
mkfifo "$TMP/fifo/$series"
reads fifo report "$TMP/fifo" --no-plots
check "a series.csv that is a FIFO: report does not wait on it, refuses it (exit 2)" [ "$rc" -eq 2 ]
check "  ... saying it is not a regular file" grep -q "not a regular file" "$TMP/fifo.err"
fresh sparse
truncate -s 3G "$TMP/sparse/$series"
reads sparse report "$TMP/sparse" --no-plots
check "a sparse 3 GB series.csv: refused (exit 2) at once" [ "$rc" -eq 2 ]
check "  ... naming the file and the cap" bash -c "grep -q -F '$series' '$TMP/sparse.err' &&
  grep -q -E 'expected a series.csv of at most [0-9]+ MiB' '$TMP/sparse.err'"
# A series.csv at its cap of rows as short as they come (16 million of "0,0"): read in one
# pass, every k-th row kept (the charts draw a few thousand points), where each row was
# measured again with the rest of the file (sscanf) and all were kept.
fresh rows
python3 -c 'import sys; open(sys.argv[1], "w").write("t_s,cpu_percent\n" + "0,0\n" * (int(sys.argv[2]) // 4 - 8))' \
  "$TMP/rows/$series" "$(( (at_cap == 100000 ? 64 : 8) << 20 ))"
timeout "$limit" "$PEAKRSS" "$TMP/rows.peak" "$LOOPBENCH" report "$TMP/rows" --no-plots >/dev/null \
  2>"$TMP/rows.err" && rc=0 || rc=$?
rows_kib=$(cat "$TMP/rows.peak" 2>/dev/null || echo 99999999)
echo "  rows: exit $rc, peak RSS $rows_kib KiB"
check "a series.csv of $(( at_cap == 100000 ? 16 : 2 )) million rows: the report within $limit s" [ "$rc" -eq 0 ]
[ -n "${LOOPBENCH_VALGRIND:-}" ] ||
  check "  ... at a peak RSS under 256 MiB" lt "$rows_kib" 262144
fresh doclink
cp "$TMP/real/results.json" "$TMP/elsewhere.json"
ln -sf "$TMP/elsewhere.json" "$TMP/doclink/results.json"
reads doclink compare "$TMP/doclink"
check "a results.json that is a link: refused (exit 2), naming it" \
  bash -c "[ $rc -eq 2 ] && grep -q 'results.json' '$TMP/doclink.err'"
fresh docfifo
rm "$TMP/docfifo/results.json"
mkfifo "$TMP/docfifo/results.json"
reads docfifo history "$TMP/docfifo" "$TMP/real"
check "a results.json that is a FIFO: refused (exit 2), nothing waits" [ "$rc" -eq 2 ]
check "a missing series.csv is no error: the report is written without its points" bash -c "
  rm -f '$TMP/zero/$series' && '$LOOPBENCH' report '$TMP/zero' --no-plots >/dev/null 2>&1"

# --- 3. caps on runs, settings and variants; the plan matched in linear time ----------------
# big NAME PLANNED RUNS SETTINGS VARIANTS [ok]: a campaign of PLANNED runs over SETTINGS
# settings and VARIANTS variants, a round of each cell after the other, the first RUNS of them
# made (failed; with ok, completed with a CPU figure), each as small as a run can be.
big() {
  mkdir -p "$TMP/$1"
  touch "$TMP/$1/.handmade"
  python3 - "$TMP/real/results.json" "$TMP/$1/results.json" "$2" "$3" "$4" "$5" "${6:-}" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
n, made, ns, nv = (int(a) for a in sys.argv[3:7])
ok = sys.argv[7] == "ok"
settings = [str(i) for i in range(ns)]
variants = ["v%d" % i for i in range(nv)]
c = doc["campaign"]
c["settings"], c["baseline"] = settings, settings[0]
c["variants"] = [{"name": v, "dir": "/nowhere/" + v} for v in variants]
plan, runs = [], []
for i in range(n):
    e = {"setting": settings[i % ns], "variant": variants[i % nv], "dir": "r/%d" % i}
    if ok:
        e["repeat"] = i // (ns * nv) + 1
    plan.append(e)
    if i < made:
        runs.append(dict(e, status="ok", cpu_percent=1 + i % 7) if ok else dict(e, status="failed"))
c["plan"], doc["runs"], doc["summary"] = plan, runs, []
json.dump(doc, open(sys.argv[2], "w"), separators=(",", ":"))
PY
  echo "  $1: $(stat -c %s "$TMP/$1/results.json") bytes"
}
big past 249000 30000 2 2
reads past report "$TMP/past" --no-plots
check "249,000 planned runs in 16 MiB: refused (exit 2) at once, where it took minutes" [ "$rc" -eq 2 ]
check "  ... saying how many runs loopbench reads" grep -q -E "runs, more than the [0-9,]+ " "$TMP/past.err"
big atcap "$at_cap" "$at_cap" 2 2
reads atcap report "$TMP/atcap" --no-plots
check "$at_cap runs (100,000 the cap): read within $limit s" bash -c "[ $rc -ne 124 ] && ! grep -q 'more than' '$TMP/atcap.err'"
big settings 514 514 257 1
reads settings compare "$TMP/settings"
check "257 settings: refused (exit 2), saying how many it reads" \
  bash -c "[ $rc -eq 2 ] && grep -q -E 'settings, more than the [0-9,]+ ' '$TMP/settings.err'"
big variants 66 66 1 33
reads variants compare "$TMP/variants"
check "33 variants: refused (exit 2), saying how many it reads" \
  bash -c "[ $rc -eq 2 ] && grep -q -E 'variants, more than the [0-9,]+ ' '$TMP/variants.err'"
big cells 2050 2050 65 16
reads cells compare "$TMP/cells"
check "65 settings x 16 variants: refused (exit 2), saying how many cells it reads" \
  bash -c "[ $rc -eq 2 ] && grep -q -E 'cells \\(settings x variants\\), more than the [0-9,]+ ' '$TMP/cells.err'"
# 257 health keys: each analysis goes over the runs once per key
fresh health
jq '.profile.health = [range(257) | {key: "k\(.)", label: "k\(.)", better: "lower"}]' \
  "$TMP/real/results.json" >"$TMP/health/results.json"
reads health compare "$TMP/health"
check "257 health keys in the profile: refused (exit 2), saying how many it reads" \
  bash -c "[ $rc -eq 2 ] && grep -q -E 'profile.health: 257 keys, more than the 256' '$TMP/health.err'"
# 100,000 completed runs of two variants, each paired with the other variant's run of its round
big paired "$at_cap" "$at_cap" 1 2 ok
reads paired compare "$TMP/paired"
check "$at_cap completed runs: compared within $limit s (exit $rc)" bash -c "[ $rc -ne 124 ] && [ $rc -ne 2 ]"

# --- 4. memory across campaigns, and a cap on what one command reads ---------------------------
# junk NAME KIND: the real campaign whose profile carries an unknown key `junk` filling the
# results.json to 16 MiB: 8.4 million zeros (KIND zeros), or one long string (string).
junk() {
  fresh "$1"
  python3 - "$TMP/real/results.json" "$TMP/$1/results.json" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
text = json.dumps(doc, separators=(",", ":"))
room = (16 << 20) - len(text) - 64
doc["profile"]["junk"] = [0] * (room // 2) if sys.argv[3] == "zeros" else "j" * room
json.dump(doc, open(sys.argv[2], "w"), separators=(",", ":"))
PY
}
if [ -n "${LOOPBENCH_VALGRIND:-}" ]; then
  echo "skip: 8 campaigns of 8.4 million values each under valgrind, and peak RSS there is valgrind's"
else
  junk zeros zeros
  copies=()
  for i in 1 2 3 4 5 6 7 8; do
    mkdir -p "$TMP/copies/$i"
    touch "$TMP/copies/$i/.handmade"
    ln "$TMP/zeros/results.json" "$TMP/copies/$i/results.json"
    copies+=("$TMP/copies/$i")
  done
  # (AddressSanitizer's quarantine keeps 256 MiB of what was freed: not what loopbench holds)
  quarantine=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16
  ASAN_OPTIONS=$quarantine timeout 120 "$PEAKRSS" "$TMP/one.peak" "$LOOPBENCH" history \
    "$TMP/copies/1" "$TMP/real" >/dev/null 2>&1 || true
  ASAN_OPTIONS=$quarantine timeout 300 "$PEAKRSS" "$TMP/eight.peak" "$LOOPBENCH" history \
    "${copies[@]}" >/dev/null 2>"$TMP/eight.err" || true
  one=$(cat "$TMP/one.peak" 2>/dev/null || echo 0)
  eight=$(cat "$TMP/eight.peak" 2>/dev/null || echo 99999999)
  echo "history: peak RSS $one KiB over one such campaign, $eight KiB over eight"
  check "history over 8 campaigns of 8.4 million unknown values: peak RSS within 1.5x of one's" \
    bash -c "[ $one -gt 0 ] && [ $eight -lt $((one * 3 / 2)) ]"
  # 36,000 runs with a round-trip histogram of one value each (9.7 MB): a histogram read
  # back holds its non-empty buckets, not 36 KiB of them (5.2 GB before)
  mkdir -p "$TMP/hist"
  touch "$TMP/hist/.handmade"
  python3 - "$TMP/real/results.json" "$TMP/hist/results.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
h = {"unit": "ns", "sub_bucket_bits": 7, "max_value": 4398046511103, "count": 1, "clamped": 0,
     "min": 1, "max": 1, "sum": 1, "counts": [[1, 1]]}
plan = [{"setting": "0", "variant": "base", "dir": "r/%d" % i} for i in range(36000)]
doc["campaign"]["plan"] = plan
doc["runs"] = [dict(e, status="ok", cpu_percent=1, rtt={"histogram": h}) for e in plan]
json.dump(doc, open(sys.argv[2], "w"), separators=(",", ":"))
PY
  ASAN_OPTIONS=$quarantine timeout 120 "$PEAKRSS" "$TMP/hist.peak" "$LOOPBENCH" compare "$TMP/hist" \
    >/dev/null 2>&1 || true
  hist=$(cat "$TMP/hist.peak" 2>/dev/null || echo 99999999)
  echo "compare of 36,000 runs with a round-trip histogram each: peak RSS $hist KiB"
  check "  ... 36,000 one-value round-trip histograms: compare's peak RSS under 1 GiB" lt "$hist" 1048576
fi
junk long string
copies=()
for i in $(seq 1 17); do
  mkdir -p "$TMP/long-copies/$i"
  touch "$TMP/long-copies/$i/.handmade"
  ln "$TMP/long/results.json" "$TMP/long-copies/$i/results.json"
  copies+=("$TMP/long-copies/$i")
done
reads total history "${copies[@]}"
check "17 campaigns of 16 MiB: history refuses the 17th (exit 2), over the total it reads" \
  bash -c "[ $rc -eq 2 ] && grep -q -E 'more than the [0-9]+ MiB one command reads' '$TMP/total.err'"
reads total-pool compare --pool "${copies[@]}"
check "  ... and so does compare --pool" \
  bash -c "[ $rc -eq 2 ] && grep -q -E 'more than the [0-9]+ MiB one command reads' '$TMP/total-pool.err'"

# --- 5. a journal and a config file a target replaced: read bounded ------------------------
# A config file whose journal is a FIFO, and one with a real journal whose file is now a
# FIFO: restore refuses each at once, saying why, where it waited forever.
mkdir -p "$TMP/conf"
printf '{"a": 1}\n' >"$TMP/conf/fifo-journal.json"
mkfifo "$TMP/conf/.fifo-journal.json.loopbench-journal"
reads journal-fifo restore "$TMP/conf/fifo-journal.json"
check "a journal that is a FIFO: restore refuses it at once (exit $rc)" \
  bash -c "[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'not a regular file' '$TMP/journal-fifo.err'"
printf '{"a": 1}\n' >"$TMP/conf/fifo-config.json"
body=$(printf '{"a": 2}\n')
{ printf 'loopbench-journal 1\nmode 0644\noriginal %s %d\n\n' \
    "$(printf '%s\n' "$body" | python3 -c 'import sys
h = 0xcbf29ce484222325
for b in sys.stdin.buffer.read():
    h = ((h ^ b) * 0x100000001b3) & (2**64 - 1)
print("%016x" % h)')" "$((${#body} + 1))"
  printf '%s\n' "$body"; } >"$TMP/conf/.fifo-config.json.loopbench-journal"
rm "$TMP/conf/fifo-config.json"
mkfifo "$TMP/conf/fifo-config.json"
reads config-fifo restore "$TMP/conf/fifo-config.json"
check "a config file that a target left a FIFO: restore refuses it at once (exit $rc)" \
  bash -c "[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'cannot be read, so it was not restored' '$TMP/config-fifo.err'"
check "  ... and keeps its journal" test -s "$TMP/conf/.fifo-config.json.loopbench-journal"
