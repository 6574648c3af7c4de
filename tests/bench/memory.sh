#!/usr/bin/env bash
# Benchmark: loopbench's peak RSS during a campaign (target: under 8 MiB).
# Prints figures; fails only if the campaign itself fails.
source "$(dirname "$0")/lib.sh"
TMP=$tmp
mkdir -p "$TMP/ref"
cp "$SOURCE_ROOT/profiles/refshard.json" "$SOURCE_ROOT/profiles/refshard.config.json" "$TMP/ref/"
cp "$REFSHARD" "$TMP/ref/refshard"
sed -i 's|{loopbench_dir}/refshard|./refshard|' "$TMP/ref/refshard.json"
"$LOOPBENCH" run "$TMP/ref/refshard.json" -s 0,2 -n 2 -w 1 -t 5 --interval 100 -o "$TMP/out" -q >/dev/null
kib=$(jq '.loopbench.max_rss_kib' "$TMP/out/results.json")
cpu=$(jq '.loopbench.cpu_seconds' "$TMP/out/results.json")
wall=$(jq '[.runs[].wall_seconds] | add' "$TMP/out/results.json")
echo "loopbench peak RSS over a 4-run campaign (100 ms series): $kib KiB ($(awk -v k="$kib" 'BEGIN { printf "%.2f", k / 1024 }') MiB; target < 8 MiB)"
echo "loopbench CPU over the campaign: $cpu s ($(awk -v c="$cpu" -v w="$wall" 'BEGIN { printf "%.3f", c / w * 100 }')% of one core per sampled second, start-up and scraping included)"
