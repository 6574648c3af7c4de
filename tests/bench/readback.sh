#!/usr/bin/env bash
# Benchmark: reading back campaigns made elsewhere at each cap (docs/reliability.md,
# "Reading back at the caps"). For each cap, inputs at half of it (N) and at it (2N); for
# each, the wall time and peak RSS of the commands that read them (report, compare,
# history, compare --pool, publish), each under tests/helpers/peakrss, and the ratio of the
# times at 2N and N, near 2 when the work is linear in the input (the median of 3 runs of
# each). Doubling the settings doubles both the cells and the runs, and an analysis goes
# over the runs once per cell: that ratio is near 4, within the caps. Measure a plain
# build (the sanitizers multiply both figures). Prints a Markdown table; fails only if a
# command does (a refusal it expects aside).
#
#   meson test -C BUILD bench-readback --suite bench -v
source "$(dirname "$0")/lib.sh"
: "${PEAKRSS:?set PEAKRSS to the peakrss helper}"
: "${REFSHARD:?set REFSHARD to the refshard binary}"

# A real campaign to grow the inputs from: two builds of refshard, two settings, one round.
source "$(dirname "$0")/../helpers/variants-campaign.sh"
variants_campaign "$tmp/seed" "$tmp"

# grow DIR KIND ARG...: a campaign in DIR made from the seed (gen below, in python).
grow() {
  local dir=$1
  shift
  mkdir -p "$dir"
  python3 - "$tmp/seed" "$dir" "$@" <<'PY'
import json, os, random, shutil, sys
seed, out, kind, args = sys.argv[1], sys.argv[2], sys.argv[3], [int(a) for a in sys.argv[4:]]
doc = json.load(open(os.path.join(seed, "results.json")))
c = doc["campaign"]
random.seed(1)

def runs(n_settings, n_variants, rounds):
    settings = [str(i) for i in range(n_settings)]
    variants = ["v%d" % i for i in range(n_variants)]
    c["settings"], c["baseline"] = settings, settings[0]
    c["variants"] = [{"name": v, "dir": "/nowhere/" + v} for v in variants]
    c["repeat"] = rounds
    plan, made = [], []
    for r in range(rounds):
        for s in settings:
            for v in variants:
                e = {"setting": s, "variant": v, "repeat": r + 1, "dir": "r/%d" % len(plan)}
                plan.append(e)
                cpu = 10 * (1 + int(s) % 7) * (1.1 if v != "v0" else 1) * random.uniform(0.95, 1.05)
                made.append(dict(e, status="ok", cpu_percent=round(cpu, 2)))
    c["plan"], doc["runs"], doc["summary"], doc["warnings"] = plan, made, [], []

if kind == "runs":           # N runs: 2 settings x 2 variants x N/4 rounds
    runs(2, 2, args[0] // 4)
elif kind == "settings":     # N settings x 2 variants x 2 rounds
    runs(args[0], 2, 2)
elif kind == "variants":     # 2 settings x N variants x 2 rounds
    runs(2, args[0], 2)
elif kind == "bytes":        # the seed with an unknown profile key of N KiB
    doc["profile"]["junk"] = "j" * (args[0] << 10)
elif kind == "series":       # the seed, its first run's series.csv N MiB
    shutil.copytree(os.path.join(seed, "runs"), os.path.join(out, "runs"))
    path = os.path.join(out, doc["runs"][0]["dir"], "series.csv")
    with open(path) as f:
        head = f.readline()
    line = "%.3f,%.3f,0,0,0,0\n"
    with open(path, "w") as f:
        f.write(head)
        n, t = 0, 0.0
        while n < args[0] << 20:
            row = line % (t, random.uniform(0, 100))
            f.write(row)
            n += len(row)
            t += 0.01
json.dump(doc, open(os.path.join(out, "results.json"), "w"), separators=(",", ":"))
PY
}

rows=()
# measure LABEL N BYTES CMD...: CMD's wall time (the median of 3) and peak RSS (the
# largest); sets secs.
measure() {
  local label=$1 n=$2 bytes=$3 t0 t1 kib=0 rc=0 times=() i
  shift 3
  for i in 1 2 3; do
    t0=$(date +%s.%N)
    "$PEAKRSS" "$tmp/peak" "$@" >/dev/null 2>"$tmp/err" || rc=$?
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
    kib=$(awk -v a="$kib" -v b="$(cat "$tmp/peak")" 'BEGIN { print (b > a ? b : a) }')
  done
  secs=$(printf '%s\n' "${times[@]}" | median)
  # (compare's exit 1 is a verdict: regressed)
  [ "$rc" -le 1 ] || echo "  ($label $n: exit $rc: $(head -c 200 "$tmp/err"))"
  rows+=("| $label | $n | $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }') | $(awk -v s="$secs" 'BEGIN { printf "%.2f", s }') s | $(awk -v k="$kib" 'BEGIN { printf "%.0f MiB", k / 1024 }') |")
}
# pair LABEL N1 N2 SETUP: SETUP N DIR makes the input for N in DIR and prints what to run on
# it, one argument a line; both sizes are measured, then the ratio of their times.
pair() {
  local label=$1 n1=$2 n2=$3 setup=$4 t_1=0 n dir bytes
  for n in "$n1" "$n2"; do
    dir=$tmp/in-$n
    rm -rf "${tmp:?}"/in-*
    mapfile -t cmd < <("$setup" "$n" "$dir")
    bytes=$(find "$dir" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    measure "$label" "$n" "$bytes" "$LOOPBENCH" "${cmd[@]}"
    [ "$n" = "$n1" ] && t_1=$secs
  done
  rows[-1]+=" $(awk -v a="$t_1" -v b="$secs" 'BEGIN { printf (a > 0 ? "%.2f" : "-"), b / a }') |"
  rows[-2]+=" |"
}

# copies DIR K SOURCE: K campaigns in DIR/1..K, each a hard link to SOURCE's results.json.
copies() {
  local i
  for i in $(seq 1 "$2"); do
    mkdir -p "$1/$i"
    ln "$3/results.json" "$1/$i/results.json"
  done
}

in_runs_report() { grow "$2" runs "$1"; printf '%s\n' report "$2" --no-plots -f json; }
in_runs_compare() { grow "$2" runs "$1"; printf '%s\n' compare "$2" -f json; }
in_settings() { grow "$2" settings "$1"; printf '%s\n' compare "$2" -f json; }
in_variants() { grow "$2" variants "$1"; printf '%s\n' compare "$2" -f json; }
in_bytes() { grow "$2" bytes "$1"; printf '%s\n' report "$2" --no-plots -f json; }
in_series() { grow "$2" series "$1"; printf '%s\n' report "$2" --no-plots; }
# history and pool over K campaigns of 15.6 MiB (the total cap, 256 MiB, at K 16)
in_history() { grow "$2/src" bytes 16000; copies "$2" "$1" "$2/src"; rm -rf "$2/src"; printf '%s\n' history $(seq -f "$2/%g" 1 "$1"); }
in_pool() { grow "$2/src" bytes 16000; copies "$2" "$1" "$2/src"; rm -rf "$2/src"; printf '%s\n' compare --pool $(seq -f "$2/%g" 1 "$1") -f json; }
# history over K campaigns of 25,000 runs (the total of runs: 250,000 at K 10)
in_history_runs() { grow "$2/src" runs 25000; copies "$2" "$1" "$2/src"; rm -rf "$2/src"; printf '%s\n' history $(seq -f "$2/%g" 1 "$1"); }
# publish of N MiB of tables (the report's cap: 16 MiB)
in_publish() {
  mkdir -p "$2"
  python3 -c 'import sys
n = int(sys.argv[1]) << 20
out = ["# many tables\n\nheadline\n\n"]
size = 0
while size < n:
    t = "| run | cpu |\n|---|---|\n" + "".join("| %d | %d.0 |\n" % (size, r) for r in range(1000)) + "\n"
    out.append(t)
    size += len(t)
open(sys.argv[2] + "/report.md", "w").write("".join(out))' "$1" "$2"
  printf '%s\n' publish "$2/report.md" --github o/r#1 --dry-run
}

pair "report: runs (cap 100,000)" 50000 100000 in_runs_report
pair "compare: runs (cap 100,000)" 50000 100000 in_runs_compare
pair "compare: settings (cap 256)" 128 256 in_settings
pair "compare: variants (cap 32)" 16 32 in_variants
pair "report: results.json KiB (cap 16 MiB)" 8000 16000 in_bytes
pair "report: series.csv MiB (cap 64)" 31 63 in_series
pair "history: campaigns of 16 MiB (256 MiB in all)" 8 16 in_history
pair "compare --pool: campaigns of 16 MiB (256 MiB in all)" 8 16 in_pool
pair "history: campaigns of 25,000 runs (250,000 in all)" 5 10 in_history_runs
pair "publish: report MiB (cap 16)" 8 15 in_publish

echo "| input (cap) | N | bytes read | time | peak RSS | time at 2N / N |"
echo "|---|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
