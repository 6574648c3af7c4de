#!/usr/bin/env bash
# What holding the CPUs out of idle states does to the figures (issue 24, docs/method.md
# "Held idle states"): campaigns of profiles/refshard-ci.json with two variants of one
# refshard build, base (as configured) and head (refshard.workPerTickUs 10: 10 us more work
# per wheel turn), at idle wait 0, 1 and 2, run in turn (one target at a time), the campaigns
# alternately free and held (--hold-idle). Per campaign: refshard's CPU at idle wait 0 and 2
# (base), and three ratios:
#   0/2     idle wait 0 against 2 (base): the seeds' question
#   work    head against base at idle wait 2: more work per wake-up
#   wakes   idle wait 1 against 2 (base): twice the wake-ups
# then per state the median of each over its campaigns.
#
#   bash harness/hold-effect.sh BUILD_DIR [CAMPAIGNS] [ROUNDS] [SAMPLE_SECONDS]
#
# BUILD_DIR holds loopbench and refshard (a release build). Defaults: 3 campaigns per state
# of 4 rounds, 5 s windows. Needs root (/dev/cpu_dma_latency). Each campaign's results stay
# in the directory printed at the end.
set -euo pipefail
build=$(cd "$1" && pwd)
campaigns=${2:-3}
rounds=${3:-4}
sample=${4:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -w /dev/cpu_dma_latency ] || { echo "hold-effect.sh: /dev/cpu_dma_latency is not writable (root only)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/loopbench-hold-effect-XXXXXX")
for v in base head; do
  mkdir -p "$work/$v"
  cp "$build/refshard" "$root/profiles/refshard.config.json" "$work/$v/"
done
jq '.settings["refshard.workPerTickUs"] = "10"' "$root/profiles/refshard.config.json" >"$work/head/refshard.config.json"
cd "$work"
figures() { # campaign -> "cpu0 cpu2 0/2 work wakes", medians over rounds
  jq -r 'def med: sort | if length % 2 == 1 then .[length / 2 | floor]
                         else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    def cpu($v; $s): [.runs[] | select(.variant == $v and .setting == $s) | .cpu_percent] | med;
    def ratio($va; $sa; $vb; $sb): [.runs | group_by(.repeat)[] |
      (map(select(.variant == $va and .setting == $sa))[0].cpu_percent /
       map(select(.variant == $vb and .setting == $sb))[0].cpu_percent)] | med;
    [cpu("base"; "0"), cpu("base"; "2"), ratio("base"; "0"; "base"; "2"),
     ratio("head"; "2"; "base"; "2"), ratio("base"; "1"; "base"; "2")]
    | map(. * 1000 | round / 1000) | join(" ")' "$1"
}
printf '%-5s %-8s %-7s %-7s %-7s %-6s %s\n' state campaign "cpu@0" "cpu@2" "0/2" work wakes
declare -A all
for k in $(seq "$campaigns"); do
  for state in free held; do
    extra=()
    [ "$state" = free ] || extra=(--hold-idle)
    "$build/loopbench" run "$root/profiles/refshard-ci.json" -s 0,1,2 -n "$rounds" -w 1 \
      -t "$sample" --variant base=base --variant head=head --order interleave "${extra[@]}" \
      -o "$state-$k" -q >/dev/null
    f=$(figures "$state-$k/results.json")
    # shellcheck disable=SC2086 # the figures are words
    printf '%-5s %-8s %-7s %-7s %-7s %-6s %s\n' "$state" "$k" $f
    all[$state]="${all[$state]:-}$f
"
  done
done
echo
printf '%-5s %-8s %-7s %-7s %-7s %-6s %s\n' state median "cpu@0" "cpu@2" "0/2" work wakes
for state in free held; do
  printf '%s' "${all[$state]}" | awk -v s="$state" '
    NF { for (i = 1; i <= NF; i++) v[i, NR] = $i; n = NR }
    END { printf "%-5s %-8s", s, "(" n ")"
          for (i = 1; i <= 5; i++) { m = 0; for (r = 1; r <= n; r++) a[r] = v[i, r]
            for (r = 1; r <= n; r++) for (q = r + 1; q <= n; q++) if (a[q] < a[r]) { t = a[r]; a[r] = a[q]; a[q] = t }
            m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            printf " %-7s", m }
          printf "\n" }'
done
echo "campaigns: $work"
