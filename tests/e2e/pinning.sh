#!/usr/bin/env bash
# Pinning (run --cpus) and duet runs (--order duet) on real processes: the target's whole
# tree runs on the CPUs given and loopbench on the others; a duet round runs its cells at
# once, each on a CPU of its own, the CPUs turned round every round; what each run got is
# in results.json. The target reports its own and its child's affinity; loopbench's is
# read from outside (the target, in a PID namespace of its own, sees no loopbench).
source "$(dirname "$0")/lib.sh"

if [ "$(nproc)" -lt 2 ]; then
  skip_test "pinning and duet need 2 CPUs, this host has $(nproc)"
fi
cp "$BURNER" "$TMP/burner"
cat >"$TMP/where.sh" <<'SH'
#!/bin/sh
cpus() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"; }
echo "target $(cpus $$)"
sh -c 'echo "child $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/$$/status)"'
exec "$(dirname "$0")/burner" --share "$1" --delay 0.7 --seconds 0.6 --linger
SH
chmod +x "$TMP/where.sh"
cat >"$TMP/where.json" <<JSON
{ "name": "where", "command": ["$TMP/where.sh", "{value}"],
  "knob": { "name": "share", "values": ["0.05", "0.2"], "argv": {} },
  "ready": { "log": "^burner: started", "timeout": 10 }, "stop": { "grace": 2 } }
JSON

# --- --cpus: the tree on CPU 1, loopbench on CPU 0 ------------------------------------
rc=0
"$LOOPBENCH" run "$TMP/where.json" --cpus 1 -n 2 -w 0.2 -t 0.5 -o "$TMP/pinned" -q \
  >"$TMP/pinned.txt" 2>&1 &
lb=$!
# loopbench's affinity once its targets run (the first is ready: its log says so)
lb_cpus=
for _ in $(seq 1 200); do
  if grep -qs '^burner: started' "$TMP"/pinned/runs/*/stdout.log; then
    lb_cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$lb/status" 2>/dev/null)
    break
  fi
  sleep 0.05
done
wait "$lb" || rc=$?
cat "$TMP/pinned.txt"
check "--cpus 1: the campaign exits 0" [ "$rc" -eq 0 ]
check "  ... results.json records the targets' CPUs and loopbench's" \
  jq -e '.campaign.cpus == {"targets": "1", "loopbench": "0"} and ([.runs[].cpus] | unique) == ["1"]' \
  "$TMP/pinned/results.json"
all_logs() { # all_logs DIR LINE: every run's stdout.log has LINE
  local log n=0
  for log in "$1"/runs/*/stdout.log; do grep -qx "$2" "$log" || return 1; n=$((n + 1)); done
  [ "$n" -gt 0 ]
}
check "  ... every target ran on CPU 1" all_logs "$TMP/pinned" "target 1"
check "  ... and so did its child" all_logs "$TMP/pinned" "child 1"
check "  ... while loopbench kept to CPU 0 (it was on ${lb_cpus:-?})" [ "$lb_cpus" = 0 ]

# --- --order duet: both settings of a round at once, on CPUs of their own -------------
rc=0
"$LOOPBENCH" run "$TMP/where.json" --order duet -n 2 -w 0 -t 1.6 -o "$TMP/duet" -q \
  >"$TMP/duet.txt" 2>&1 || rc=$?
cat "$TMP/duet.txt"
res=$TMP/duet/results.json
check "--order duet: the campaign exits 0" [ "$rc" -eq 0 ]
check "  ... recorded as duet, on CPUs 0-1, none spare for loopbench" \
  jq -e '.campaign.order == "duet" and .campaign.cpus == {"targets": "0-1", "loopbench": null}' "$res"
check "  ... each round's two runs on different CPUs" jq -e '
  [.runs | group_by(.repeat)[] | map(.cpus) | sort] == [["0", "1"], ["0", "1"]]' "$res"
check "  ... each setting on the other CPU in the next round" jq -e '
  [.runs | group_by(.setting)[] | map(.cpus) | unique | length] == [2, 2]' "$res"
check "  ... the windows of a round overlap" jq -e '
  [.runs | group_by(.repeat)[] | .[0].window_start <= .[1].window_end
     and .[1].window_start <= .[0].window_end] | all' "$res"
pinned_as_recorded() {
  local dir cpus
  for dir in $(jq -r '.runs[] | "\(.dir)=\(.cpus)"' "$res"); do
    cpus=${dir#*=}
    grep -qx "target $cpus" "$TMP/duet/${dir%=*}/stdout.log" || return 1
    grep -qx "child $cpus" "$TMP/duet/${dir%=*}/stdout.log" || return 1
  done
}
check "  ... each target's tree ran on the CPU its run records" pinned_as_recorded
# Each burner sleeps 0.7 s, burns 0.6 s and sleeps until stopped: each window reads what
# its own burner used in it, within the documented 0.1 points (lib.sh).
each_reads_its_burner() {
  local i
  for i in $(seq 0 $(($(jq '.runs | length' "$1/results.json") - 1))); do
    echo "run $i: loopbench $(jq ".runs[$i].cpu_percent" "$1/results.json")%, its burner $(slept_truth "$1" "$i")%"
    reads_truth "$1" "$i" || return 1
  done
}
check "  ... each run read what its own burner used in the window, while the other ran" each_reads_its_burner "$TMP/duet"

"$LOOPBENCH" report "$TMP/duet" --no-plots -o "$TMP/duet.md" >/dev/null 2>&1
check "  ... and the report says how it ran" \
  grep -q "Duet: targets at once, each on its own slice of CPUs 0-1 (turned every round)" "$TMP/duet.md"

# --- duet with variants: each setting's two builds at once, the settings in turn -------
for v in base head; do
  mkdir -p "$TMP/$v"
  printf '#!/bin/sh\nexec "%s" --share "$1" --forever\n' "$TMP/burner" >"$TMP/$v/target"
  chmod +x "$TMP/$v/target"
done
cat >"$TMP/builds.json" <<JSON
{ "name": "builds", "command": ["{variant_dir}/target", "{value}"],
  "knob": { "name": "share", "values": ["0.05", "0.2"], "argv": {} },
  "ready": { "delay": 0 }, "stop": { "grace": 2 } }
JSON
rc=0
"$LOOPBENCH" run "$TMP/builds.json" --variant base="$TMP/base" --variant head="$TMP/head" \
  --order duet --rotate 0 -n 2 -w 0.2 -t 1.5 -o "$TMP/builds" -q >/dev/null 2>&1 || rc=$?
res=$TMP/builds/results.json
check "--order duet with 2 settings x 2 builds on 2 CPUs: the campaign exits 0" [ "$rc" -eq 0 ]
check "  ... base and head of a setting on different CPUs, their windows overlapping" jq -e '
  [.runs | group_by([.repeat, .setting])[] | (map(.cpus) | sort) == ["0", "1"]
     and .[0].window_start <= .[1].window_end and .[1].window_start <= .[0].window_end]
  | length == 4 and all' "$res"
check "  ... each build on the other CPU in the next round" jq -e '
  [.runs | group_by([.variant, .setting])[] | map(.cpus) | unique | length] == [2, 2, 2, 2]' "$res"

# --- the gate of a duet: the CPU set a factor once each assignment ran twice -----------
# 2 rounds: base on CPU 0 and head on 1, then swapped, once each: the CPUs' effect cannot be
# told from the change yet, so nothing is decided, and the note says why
rc=0
"$LOOPBENCH" compare "$TMP/builds" --metric cpu -f json >"$TMP/crossover2.json" || rc=$?
check "compare of the 2-round duet: not decided, the CPU sets varied too little, and why" jq -e '
  [.rows[] | .cpu_sets == 2 and .cpu_modelled == false and .verdict == "cannot test"
     and (.cpu_note | test("fewer than 2 rounds"))] | length == 2 and all' "$TMP/crossover2.json"
# the same rounds as if they had rotated inside their windows: each build as long on each CPU,
# so the CPU set they started on is no factor and the paired t decides
jq '.runs |= map(.rotation = {swaps: 2, cpu_sets: [{cpus: "0", seconds: 0.75}, {cpus: "1", seconds: 0.75}]})' \
  "$TMP/builds/results.json" >"$TMP/rotated.json"
"$LOOPBENCH" compare "$TMP/rotated.json" --metric cpu -f json >"$TMP/rotated-cmp.json" || rc=$?
check "  ... had they rotated, one assignment: today's paired t" jq -e '
  [.rows[] | .cpu_sets == 1 and .cpu_modelled == false and .cpu_note == null
     and .test == "paired t on log ratios"] | length == 2 and all' "$TMP/rotated-cmp.json"
# the same rounds twice more (head's CPU 2% higher in the copies, so that each assignment
# has a spread): each assignment of CPUs ran 2 rounds, and the gate models it
jq '(.campaign.plan, .runs) |= . + [.[] | .repeat += 2 | .dir = "runs/\(.variant)/\(.setting)-\(.repeat)"
      | if .variant == "head" and .cpu_percent then .cpu_percent *= 1.02 else . end]
    | .campaign.repeat = 4' "$TMP/builds/results.json" >"$TMP/builds4.json"
"$LOOPBENCH" compare "$TMP/builds4.json" --metric cpu -f json >"$TMP/crossover4.json" || rc=$?
check "compare of 4 rounds, each assignment twice: the CPU set a factor" jq -e '
  [.rows[] | .cpu_sets == 2 and .cpu_modelled and .cpu_note == null
     and .test == "paired t on log ratios, CPU set a factor" and (.cpu_effect | type) == "number"]
  | length == 2 and all' "$TMP/crossover4.json"
"$LOOPBENCH" report "$TMP/builds4.json" -f json -o "$TMP/report4.json" >/dev/null 2>&1 || true
check "  ... the report's CPU ratios are the same test's" bash -c "jq -c '[.. | objects
  | select(has(\"test\") and has(\"ratio_ci\")) | .test] | unique' '$TMP/report4.json' |
  grep -q 'paired t on log ratios, CPU set a factor'"
"$LOOPBENCH" compare "$TMP/builds4.json" --metric cpu >"$TMP/crossover4.md" 2>&1 || true
check "  ... and its note says the CPU's effect was removed" \
  grep -q "2 assignments of CPU sets, their effect +-.*% removed" "$TMP/crossover4.md"

# the 2 rounds five times over (head's CPU moved by a different factor in each copy, one of
# them wild): each assignment ran 5 rounds, so --trim trims 1 from each end of each
jq '[1, 1.02, 1.05, 0.99, 1.5] as $moved
    | (.campaign.plan, .runs) |= [range(0; 5) as $k | .[] | .repeat += 2 * $k
        | .dir = "runs/\(.variant)/\(.setting)-\(.repeat)"
        | if .variant == "head" and .cpu_percent then .cpu_percent *= $moved[$k] else . end]
    | .campaign.repeat = 10' "$TMP/builds/results.json" >"$TMP/builds10.json"
"$LOOPBENCH" compare "$TMP/builds10.json" --metric cpu --trim -f json >"$TMP/trim10.json" || rc=$?
check "compare --trim of 10 rounds, 5 an assignment: Yuen's trimmed t, 4 rounds trimmed" jq -e '
  [.rows[] | .cpu_modelled and .trimmed_rounds == 4
     and .test == "trimmed paired t on log ratios (Yuen), CPU set a factor"]
  | length == 2 and all' "$TMP/trim10.json"
"$LOOPBENCH" compare "$TMP/builds10.json" --metric cpu -f json >"$TMP/notrim10.json" || rc=$?
check "  ... and without --trim every round counts" jq -e '
  [.rows[] | .trimmed_rounds == 0 and .test == "paired t on log ratios, CPU set a factor"]
  | length == 2 and all' "$TMP/notrim10.json"

# --- refusals ---------------------------------------------------------------------------
refused() { # refused DESCRIPTION PATTERN ARGS...: exit 2 and a message matching PATTERN
  local what=$1 pattern=$2 rc=0
  shift 2
  "$LOOPBENCH" run "$TMP/where.json" "$@" -o "$TMP/refused" >"$TMP/refused.txt" 2>&1 || rc=$?
  check "$what" bash -c "[ $rc -eq 2 ] && grep -q -- \"$pattern\" '$TMP/refused.txt' && [ ! -e '$TMP/refused/results.json' ]"
}
refused "--cpus with a CPU the host lacks is refused" "--cpus '4096'" --cpus 4096
refused "--cpus with a CPU loopbench may not use is refused" "may run on CPUs" --cpus 1000
refused "--cpus that is not a list is refused" "expected CPUs as numbers" --cpus 1-x
refused "--order duet with one setting is refused" "runs the settings of a round at once" --order duet -s 0.2
check "no target left" no_process_from "$TMP"
