#!/usr/bin/env bash
# The noise floor of one host (issue 24, docs/ci.md): A/A duet campaigns of
# profiles/refshard-ci.json at idle wait 2, two variants of one refshard build, in four
# designs, the designs taking turns so that each sees the host as the others do:
#   duet      today's duet: each build on one CPU for the window, swapped every round
#   rotate    the two swap CPUs every ROTATE seconds inside the window (--rotate)
#   hold      the CPUs held out of idle states through warm-up and window (--hold-idle)
#   both      rotation and the hold
# prints the sd of the per-round log(head/base) of each campaign, then per design the
# median and the range over its campaigns.
#
#   bash harness/noise-floor.sh BUILD_DIR [CAMPAIGNS] [ROUNDS] [SAMPLE_SECONDS] [ROTATE]
#
# BUILD_DIR holds loopbench and refshard (a release build: meson setup build-rel
# -Dbuildtype=release). Defaults: 6 campaigns of 10 rounds per design, 5 s windows,
# ROTATE 0.5 s. The hold needs root (/dev/cpu_dma_latency); without it those designs are
# left out, saying so. Each campaign's results stay in the directory printed at the end.
set -euo pipefail
build=$(cd "$1" && pwd)
campaigns=${2:-6}
rounds=${3:-10}
sample=${4:-5}
rotate=${5:-0.5}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/loopbench-noise-floor-XXXXXX")
for v in base head; do
  mkdir -p "$work/$v"
  cp "$build/refshard" "$root/profiles/refshard.config.json" "$work/$v/"
done
cd "$work"
designs=(duet rotate)
if [ -w /dev/cpu_dma_latency ]; then
  designs+=(hold both)
else
  echo "noise-floor: /dev/cpu_dma_latency is not writable (root only): hold and both left out" >&2
fi
sd_of() { # the sd of log(head/base) over the rounds of a campaign
  jq -r '[.runs | group_by(.repeat)[] | (map(select(.variant == "head"))[0].cpu_percent
          / map(select(.variant == "base"))[0].cpu_percent | log)]
    | (add / length) as $m | (map(. - $m | . * .) | add / (length - 1) | sqrt)' "$1"
}
printf '%-8s %-9s %s\n' "design" "campaign" "sd of log(head/base)"
declare -A sds
for k in $(seq "$campaigns"); do
  for design in "${designs[@]}"; do
    case $design in
      duet) extra=(--rotate 0) ;;
      rotate) extra=(--rotate "$rotate") ;;
      hold) extra=(--rotate 0 --hold-idle) ;;
      both) extra=(--rotate "$rotate" --hold-idle) ;;
    esac
    "$build/loopbench" run "$root/profiles/refshard-ci.json" -s 2 -n "$rounds" -w 1 -t "$sample" \
      --variant base=base --variant head=head --order duet "${extra[@]}" -o "$design-$k" -q \
      >/dev/null
    sd=$(sd_of "$design-$k/results.json")
    printf '%-8s %-9s %.4f\n' "$design" "$k" "$sd"
    sds[$design]="${sds[$design]:-} $sd"
  done
done
echo
printf '%-8s %-9s %-8s %s\n' "design" "campaigns" "median" "range"
for design in "${designs[@]}"; do
  # shellcheck disable=SC2086 # the sds are words
  printf '%s\n' ${sds[$design]} | sort -g | awk -v d="$design" '
    { v[NR] = $1 }
    END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
          printf "%-8s %-9d %-8.4f %.4f-%.4f\n", d, NR, m, v[1], v[NR] }'
done
echo "campaigns: $work"
