#!/usr/bin/env bash
# Make docs/report.md's worked example again, from a real campaign: refshard at idle wait 0,
# 2 and 8 ms, 3 runs each, interleaved, 1 s warm-ups and 3 s windows (about a minute), its
# report put between the example's markers in docs/report.md (headings one level down, so
# they sit under the page's own) and its plots into docs/report-example/. Run it whenever
# the report's form changes; tests/e2e/docs.sh fails while the example is stale.
#
#   bash harness/report-example.sh [BUILD]     (BUILD: a build directory, default build)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=$(realpath "${1:-build}")
[ -x "$build/loopbench" ] && [ -x "$build/refshard" ] ||
  { echo "report-example: no loopbench and refshard in '$build' (build it first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/loopbench-example-XXXXXX")
trap 'rm -rf "$work"' EXIT

cp profiles/refshard.json profiles/refshard.config.json "$build/refshard" "$work/"
sed -i 's|{loopbench_dir}/refshard|./refshard|' "$work/refshard.json"
# The command lines docs/report.md shows, run from the campaign's directory's parent.
(cd "$work" && "$build/loopbench" run refshard.json -s 0,2,8 -n 3 -w 1 -t 3 -o idle -q >/dev/null)
find docs/report-example -maxdepth 1 -type f ! -name 'mermaid-*' -delete
"$build/loopbench" report "$work/idle" --title "refshard: idle wait 0, 2 and 8 ms" \
  --plots docs/report-example -o "$work/report.md"
# gnuplot's own log, and a round-trip plot's data a campaign without round trips leaves empty
rm -f docs/report-example/gnuplot.log
[ -s docs/report-example/latency.dat ] || rm -f docs/report-example/latency.dat

begin='<!-- report-example: made by harness/report-example.sh, do not edit -->'
end='<!-- report-example: end -->'
grep -qxF "$begin" docs/report.md && grep -qxF "$end" docs/report.md ||
  { echo "report-example: docs/report.md has no example markers" >&2; exit 1; }
awk -v begin="$begin" -v end="$end" -v report="$work/report.md" '
  $0 == begin { print; print ""; while ((getline line < report) > 0) {
      if (line ~ /^#/) line = "#" line
      print line }
    print ""; skip = 1; next }
  $0 == end { skip = 0 }
  !skip { print }' docs/report.md >"$work/doc.md"
mv "$work/doc.md" docs/report.md
echo "report-example: docs/report.md and docs/report-example/ made again"
