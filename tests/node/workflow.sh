#!/usr/bin/env bash
# The GitHub Actions workflow (.github/workflows/ci.yml) is valid: action-validator
# checks it against the workflow schema (and the actions it names, their inputs).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_node
cd "$SOURCE_ROOT"
for workflow in .github/workflows/*.yml; do
  node "$LOOPBENCH_NPM_DIR/node_modules/@action-validator/cli/cli.mjs" "$workflow"
  echo "ok: $workflow"
done
