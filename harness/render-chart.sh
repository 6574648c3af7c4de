#!/usr/bin/env bash
# Render the Mermaid charts of a Markdown file to PNG, as GitHub would draw them: for the
# picture docs/report.md shows of the example campaign's CPU chart.
#
#   bash harness/render-chart.sh [MARKDOWN [OUT_PREFIX]]
#
# Every ```mermaid block of MARKDOWN (default docs/report.md) becomes OUT_PREFIX-K.png
# (default docs/report-example/mermaid-cpu), K counting blocks from 1. Mermaid's command
# line (@mermaid-js/mermaid-cli, from npm, cached in
# ${XDG_CACHE_HOME:-~/.cache}/loopbench/npm-render by harness/npm-deps.sh) draws them in
# Debian's chromium (installed when missing; needs root), never a downloaded browser.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
markdown=${1:-docs/report.md}
prefix=${2:-docs/report-example/mermaid-cpu}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/loopbench/npm-render
chromium=/usr/bin/chromium

if [ ! -x "$chromium" ] || ! command -v npm >/dev/null; then
  echo "render-chart: installing chromium, nodejs and npm" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium nodejs npm
fi
bash harness/npm-deps.sh harness/mermaid-render "$cache"

work=$(mktemp -d "${TMPDIR:-/tmp}/loopbench-render-XXXXXX")
trap 'rm -rf "$work"' EXIT
# The blocks alone, fenced, so that mermaid-cli numbers them as this script does. Root
# (as on CI) cannot run chromium's sandbox.
awk '/^```mermaid$/ { on = 1 } on { print } /^```$/ && on { on = 0; print "" }' "$markdown" \
  >"$work/charts.md"
sandbox='[]'
[ "$(id -u)" -ne 0 ] || sandbox='["--no-sandbox"]'
printf '{"executablePath": "%s", "args": %s}\n' "$chromium" "$sandbox" >"$work/puppeteer.json"
PUPPETEER_SKIP_DOWNLOAD=1 "$cache/node_modules/.bin/mmdc" --quiet -p "$work/puppeteer.json" \
  -i "$work/charts.md" -o "$work/out.md" -e png -b white -s 2
n=0
for png in "$work"/out-*.png; do
  n=$((n + 1))
  mkdir -p "$(dirname "$prefix")"
  mv "$png" "$prefix-${png##*/out-}"
  echo "wrote $prefix-${png##*/out-}"
done
[ "$n" -gt 0 ] || { echo "render-chart: no mermaid block in $markdown" >&2; exit 1; }
