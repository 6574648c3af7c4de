#!/usr/bin/env bash
# Mermaid's own parser, as GitHub's renderer runs it, reads every chart src/base/mermaid.c
# makes in its unit test (tests/unit/check-mermaid.c appends each to MERMAID_SAMPLES:
# quotes, brackets and entities in labels, log scales, missing values, ten lines) and
# the charts shown in docs/report.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${CHECK_MERMAID:?run through meson test}"
need_node
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopbench-mermaid-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
MERMAID_SAMPLES=$tmp/samples.md "$CHECK_MERMAID" >/dev/null
check_mermaid --min 10 "$tmp/samples.md" "$SOURCE_ROOT/docs/report.md"
