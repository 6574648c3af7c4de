#!/usr/bin/env bash
# Install the npm packages a package.json names into a cache outside the clone, once.
#
#   bash harness/npm-deps.sh PACKAGE_DIR CACHE_DIR
#
# PACKAGE_DIR holds the package.json (tests/node: what the tests run on Node.js;
# harness/mermaid-render: Mermaid's command line for harness/render-chart.sh). Its
# packages land in CACHE_DIR/node_modules; the copy of package.json beside them is the
# stamp: when it equals PACKAGE_DIR's and the last install finished, nothing is done.
# npm and node come from Debian (nodejs, npm); puppeteer's browser download is off
# (PUPPETEER_SKIP_DOWNLOAD): Debian's chromium is used where a browser is needed.
# Nothing installed here is needed to build or run loopbench.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 PACKAGE_DIR CACHE_DIR" >&2; exit 2; }
src=$1/package.json
cache=$2
log() { printf '[npm-deps] %s\n' "$*" >&2; }

if cmp -s "$src" "$cache/package.json" && [ -f "$cache/.complete" ]; then
  log "up to date: $cache"
  exit 0
fi
command -v npm >/dev/null || { log "npm is not installed (apt-get install nodejs npm)"; exit 1; }
mkdir -p "$cache"
rm -f "$cache/.complete"
cp "$src" "$cache/package.json"
log "installing $(jq -r '.dependencies | to_entries | map("\(.key)@\(.value)") | join(" ")' "$src") into $cache"
(cd "$cache" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund --omit=dev \
  --loglevel=error >/dev/null)
touch "$cache/.complete"
