#!/usr/bin/env bash
# loopbench report end to end: a real refshard campaign (idle wait 0, 2, 8; 3 runs each)
# written as Markdown (plots drawn where asked), CSV and JSON.
source "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/ref"
cp "$SOURCE_ROOT/profiles/refshard.json" "$SOURCE_ROOT/profiles/refshard.config.json" "$TMP/ref/"
cp "$REFSHARD" "$TMP/ref/refshard"
sed -i 's|{loopbench_dir}/refshard|./refshard|' "$TMP/ref/refshard.json"
out=$TMP/c
"$LOOPBENCH" run "$TMP/ref/refshard.json" -s 0,2,8 -n 3 -w 0.5 -t 2.5 -o "$out" -q >"$TMP/run.out"

# --- 1. Markdown: printed; written, and plots drawn, only where asked ----------------------
rc=0
"$LOOPBENCH" report "$out" -f md >"$TMP/stdout.md" 2>"$TMP/report.err" || rc=$?
cat "$TMP/stdout.md"
check "report exits 0" [ "$rc" -eq 0 ]
check "report DIR writes nothing: no DIR/report.md, no plots" \
  bash -c "[ ! -e '$out/report.md' ] && [ ! -e '$out/plots' ]"
"$LOOPBENCH" report "$out" -o "$out/report.md" --plots "$out/plots" >"$TMP/o.out" 2>&1
check "-o FILE writes what it prints, and nothing on stdout" bash -c "
  cmp -s '$out/report.md' '$TMP/stdout.md' && ! grep -q '^## ' '$TMP/o.out'"
# Headline: the factor and its words come from the data (idle wait 2 uses far less CPU),
# in the gate's words, the interval beside them.
check "headline for 2: improved, Nx less CPU than 0 with its CI" grep -Eq \
  '^  - CPU: improved, [0-9.]+x less \(90% CI [0-9.]+-[0-9.]+x\)\.$' "$out/report.md"
check "  ... under the setting against the baseline" grep -q '^- idle wait (ms) 2 against 0:$' \
  "$out/report.md"
check "a health key is given the gate's word" grep -Eq \
  'peak lag (no change|inconclusive|cannot test|regressed|improved)' "$out/report.md"
check "table rows: the baseline marked, 3 runs each" bash -c "
  grep -q '^| 0 (baseline) |.*| 3 |\$' '$out/report.md' &&
  grep -q '^| 2 |.*| 3 |\$' '$out/report.md' && grep -q '^| 8 |.*| 3 |\$' '$out/report.md'"
check "the Markdown table is well-formed (same columns in every row)" awk -F'|' '
  /^\| idle wait/ { n = NF; t = 1; next } t && /^\|/ { if (NF != n) bad = 1; next } t { t = 0 }
  END { exit bad || !n }' "$out/report.md"
check "the separator row has one cell per column" awk -F'|' '
  /^\| idle wait/ { n = NF; getline; exit !(NF == n && $0 ~ /^\|---\|/) }' "$out/report.md"
check "the method footnote names host, window and version" grep -Eq \
  'logical CPUs.*warm-up 0.5 s, sample 2.5 s, 3 runs per setting, order interleave.*loopbench [0-9]' \
  "$out/report.md"
check "the method footnote names the CPU clock and its resolution" grep -Eq \
  'CPU clock: (perf-task-clock, resolution 1 us|process-tree-clocks, resolution [0-9.]+ ms)\.' \
  "$out/report.md"
check "the Markdown links no local file (a pull request could not show it)" \
  bash -c "! grep -q '](' '$out/report.md'"
for img in cpu cpu-time tradeoff; do
  check "$img.svg is an SVG" grep -q '<svg' "$out/plots/$img.svg"
  check "$img.png is a PNG" bash -c "head -c 8 '$out/plots/$img.png' | od -An -tx1 |
    grep -q '89 50 4e 47 0d 0a 1a 0a'"
done
check "the .gp script and .dat files are kept" test -s "$out/plots/plots.gp" -a -s "$out/plots/cpu.dat" \
  -a -s "$out/plots/cpu-time.dat" -a -s "$out/plots/tradeoff.dat"
check "gnuplot re-renders from them" bash -c "cd '$out/plots' && gnuplot plots.gp"

# A target that uses no CPU at all: its plots drawn on a linear scale (a log scale cannot
# show 0, and gnuplot refused to draw them).
jq -n '{name: "idle", command: ["sh", "-c", "echo ready; exec sleep 30"],
  knob: {name: "k", values: ["a", "b"], env: "K"}, ready: {log: "^ready", timeout: 5},
  stop: {grace: 1}}' >"$TMP/idle.json"
note='PR #7: *bold* [x](http://e.example) <b>hi</b> | `tick` @team'
"$LOOPBENCH" run "$TMP/idle.json" -n 1 -w 0 -t 0.5 -o "$TMP/idle" -q --note "$note" >/dev/null 2>&1
rc=0
"$LOOPBENCH" report "$TMP/idle" --plots "$TMP/idle/plots" >"$TMP/idle.md" 2>"$TMP/idle.err" || rc=$?
check "a campaign of 0% CPU: report exits 0, gnuplot draws its plots" bash -c "
  [ $rc -eq 0 ] && ! grep -q gnuplot '$TMP/idle.err' && grep -q '<svg' '$TMP/idle/plots/cpu.svg'"

# --- 1a. run --note: recorded as given, in the header as text (Markdown of its own inert) -
check "run --note is recorded as given" \
  [ "$(jq -r .campaign.note "$TMP/idle/results.json")" = "$note" ]
check "  ... and shown under the title, its Markdown escaped" [ "$(sed -n 3p "$TMP/idle.md")" = \
  'Note: PR \#7: \*bold\* \[x\](http://e.example) \<b\>hi\</b\> \| \`tick\` @‍team' ]
check "  ... a campaign without one has no note line" bash -c "! grep -q '^Note' '$TMP/stdout.md'"
rc=0
"$LOOPBENCH" run "$TMP/idle.json" --note $'ok\e]0;x\a' -o "$TMP/idle-bad" >/dev/null \
  2>"$TMP/err" || rc=$?
check "a control character in --note: exit 2, nothing run" bash -c "
  [ $rc -eq 2 ] && [ ! -e '$TMP/idle-bad' ] && grep -q 'control character' '$TMP/err'"
mkdir -p "$TMP/evil-note"
jq '.campaign.note = "a\u001b[2Jb"' "$TMP/idle/results.json" >"$TMP/evil-note/results.json"
rc=0
"$LOOPBENCH" report "$TMP/evil-note" >/dev/null 2>"$TMP/err" || rc=$?
check "a results.json whose note holds a control character: refused (exit 2), naming the key" \
  bash -c "[ $rc -eq 2 ] && grep -q 'campaign.note' '$TMP/err' && ! grep -q \$'\\e' '$TMP/err'"
rm -r "$TMP/evil-note" # not a campaign loopbench wrote: lib.sh reads back every other

# --- 1b. what `run` printed is what `report` says -----------------------------------------
# The headline sentences and the table's rows, with the terminal's padding taken out.
sentences_and_rows() { grep -E '^( *- |\| )' "$1" | sed -E 's/ *\| */|/g'; }
check "run's table and headline are report's, setting for setting" \
  cmp -s <(sentences_and_rows "$TMP/run.out") <(sentences_and_rows "$out/report.md")
# A setting that uses more CPU than the baseline says so: idle wait 0 against a baseline of 2.
jq '.knob.baseline = "2"' "$TMP/ref/refshard.json" >"$TMP/ref/base2.json"
"$LOOPBENCH" run "$TMP/ref/base2.json" -s 2,0 -n 2 -w 0.5 -t 1.5 -o "$TMP/more" -q >"$TMP/more.out"
"$LOOPBENCH" report "$TMP/more" -o "$TMP/more/report.md" >/dev/null 2>&1
check "a setting that uses more CPU than the baseline reads 'Nx more', in run and in report" bash -c "
  grep -Eq '^\| 0 +\| +[0-9.]+ \([0-9.]+-[0-9.]+\) +\| +[0-9.]+x more \(' '$TMP/more.out' &&
  grep -Eq '^\| 0 \| [0-9.]+ \([0-9.]+-[0-9.]+\) \| [0-9.]+x more \(' '$TMP/more/report.md' &&
  ! grep -q 'x less' '$TMP/more.out'"
check "  ... and run's table and headline are report's" \
  cmp -s <(sentences_and_rows "$TMP/more.out") <(sentences_and_rows "$TMP/more/report.md")

# --- 2. gnuplot missing: one note, everything else done --------------------------------
rc=0
PATH=/nonexistent "$LOOPBENCH" report "$out" --plots "$TMP/noplots" -o "$TMP/nognuplot.md" \
  >/dev/null 2>"$TMP/nognuplot.err" || rc=$?
check "without gnuplot report still exits 0" [ "$rc" -eq 0 ]
check "  ... with one note saying so" test "$(grep -c 'gnuplot is not installed' "$TMP/nognuplot.err")" -eq 1
check "  ... the script and data written, no image linked" bash -c "test -s '$TMP/noplots/plots.gp' &&
  ! grep -q '!\[' '$TMP/nognuplot.md'"

# --- 2b. no health line in any window (a window shorter than the stats interval) ----------
jq '.runs[].metrics = {}' "$out/results.json" >"$TMP/nohealth.json"
rc=0
"$LOOPBENCH" report "$TMP/nohealth.json" --plots "$TMP/nohealth-plots" -o "$TMP/nohealth.md" \
  >/dev/null 2>&1 || rc=$?
check "no health values: still exits 0" [ "$rc" -eq 0 ]
check "  ... CPU plots drawn, no trade-off" bash -c "[ -s '$TMP/nohealth-plots/cpu.svg' ] &&
  [ ! -e '$TMP/nohealth-plots/tradeoff.svg' ]"
check "  ... health keys cannot be tested, and it says why" \
  grep -q 'peak lag cannot test (no completed run recorded it)' "$TMP/nohealth.md"

# --- 3. CSV and JSON ---------------------------------------------------------------------
"$LOOPBENCH" report "$out" -f csv -o "$TMP/r.csv" >/dev/null 2>&1
check "CSV: a header, 9 run rows and 3 setting rows" bash -c "
  head -1 '$TMP/r.csv' | grep -q '^host,kind,setting,baseline,repeat,runs,cpu_percent' &&
  [ \$(grep -c '^[^,]*,run,' '$TMP/r.csv') -eq 9 ] && [ \$(grep -c '^[^,]*,setting,' '$TMP/r.csv') -eq 3 ]"
check "CSV: every row has the header's field count" awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 }
  END { exit bad }' "$TMP/r.csv"
"$LOOPBENCH" report "$out" -f json -o "$TMP/r.json" >/dev/null 2>&1
check "JSON: 3 settings, the ratio to the baseline with a CI and a p" jq -e '
  .hosts[0].settings | length == 3 and .[0].baseline and .[0].cpu_vs_baseline == null
  and (.[1].cpu_vs_baseline | .ratio < 0.2 and (.ratio_ci | length) == 2 and .p < 0.05
       and .paired.pairs == 3)' "$TMP/r.json"
check "  ... and each cell's verdicts, as compare gives them" jq -e '
  .hosts[0].settings[0].verdicts == [] and
  ([.hosts[0].settings[1].verdicts[] | select(.metric == "cpu")][0]
   | .verdict == "improved" and .gated and .change < -0.8 and (.ci | length) == 2)' "$TMP/r.json"

# --- 4. several hosts: a column group each ---------------------------------------------
jq '.host.hostname = "laptop"' "$out/results.json" >"$TMP/laptop.json"
"$LOOPBENCH" report "$out" "$TMP/laptop.json" --no-plots -o "$TMP/hosts.md" >/dev/null 2>&1
check "two hosts: a column group per host" bash -c "
  grep -q '^| idle wait (ms) | [^|]*: CPU % of one core |.*| laptop: CPU % of one core |' '$TMP/hosts.md'"
check "  ... and a headline per host" grep -q '^- \*\*laptop\*\*: idle wait' "$TMP/hosts.md"
check "  ... the instruments neither host had said once" bash -c "
  [ \$(grep -c 'No idle-state figures' '$TMP/hosts.md') -le 1 ]"

# --- 5. bad input -------------------------------------------------------------------------
rc=0
"$LOOPBENCH" report "$TMP/nothing" >/dev/null 2>"$TMP/err" || rc=$?
check "an unreadable directory: exit 2" [ "$rc" -eq 2 ]
rc=0
"$LOOPBENCH" report "$out" -f xml >/dev/null 2>"$TMP/err" || rc=$?
check "an unknown format: exit 2" [ "$rc" -eq 2 ]
check "no refshard left" no_process_from "$TMP/ref"
