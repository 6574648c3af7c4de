#!/usr/bin/env bash
# The GitHub Action and workflows are valid: action.yml (the Action: action-validator takes
# a file named action.yml against the action schema), .github/workflows/*.yml and the
# examples in harness/ci/ (the regression job, the matrix, the nightly history job).
# action-validator checks each workflow against the workflow schema (and the actions it
# names, their inputs).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_node
cd "$SOURCE_ROOT"
for workflow in action.yml .github/workflows/*.yml harness/ci/*.yml; do
  node "$LOOPBENCH_NPM_DIR/node_modules/@action-validator/cli/cli.mjs" "$workflow"
  echo "ok: $workflow"
done
