#!/usr/bin/env bash
# The spread of an A/A comparison under each way of running it (issue 15, docs/ci.md):
# two variants of one refshard build at idle wait 2, ROUNDS rounds, run
#   interleaved and unpinned, interleaved with both targets pinned to one CPU (--cpus),
#   and as a duet (both at once, each on a CPU of its own, swapped every round);
# prints the standard deviation of the per-round log ratio head/base of each.
#
#   bash harness/spread.sh BUILD_DIR [ROUNDS] [SAMPLE_SECONDS] [REPEATS]
#
# BUILD_DIR holds loopbench and refshard (a release build: meson setup build-rel
# -Dbuildtype=release). REPEATS campaigns of each kind are run, the kinds taking turns.
set -euo pipefail
build=$(cd "$1" && pwd)
rounds=${2:-10}
sample=${3:-5}
repeats=${4:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/loopbench-spread-XXXXXX")
trap 'rm -rf "$work"' EXIT
for v in base head; do
  mkdir -p "$work/$v"
  cp "$build/refshard" "$root/profiles/refshard.config.json" "$work/$v/"
done
cd "$work"
sd_of() { # the sd of log(head/base) over the rounds of a campaign
  jq -r '[.runs | group_by(.repeat)[] | (map(select(.variant == "head"))[0].cpu_percent
          / map(select(.variant == "base"))[0].cpu_percent | log)]
    | (add / length) as $m | (map(. - $m | . * .) | add / (length - 1) | sqrt)' "$1"
}
printf '%-22s %s\n' "kind" "sd of log(head/base) per campaign"
declare -A sds
for k in $(seq "$repeats"); do
  for kind in unpinned pinned duet; do
    case $kind in
      unpinned) extra=(--order interleave) ;;
      pinned) extra=(--order interleave --cpus 1) ;;
      duet) extra=(--order duet) ;;
    esac
    "$build/loopbench" run "$root/profiles/refshard-ci.json" -s 2 -n "$rounds" -w 1 -t "$sample" \
      --variant base=base --variant head=head "${extra[@]}" -o "$kind-$k" -q >/dev/null
    sds[$kind]="${sds[$kind]:-} $(sd_of "$kind-$k/results.json")"
  done
done
for kind in unpinned pinned duet; do
  printf '%-22s %s\n' "$kind" "${sds[$kind]}"
done
