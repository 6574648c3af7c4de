#!/usr/bin/env bash
# The GitHub Actions workflows are valid: .github/workflows/ci.yml and the examples of the
# regression job and the nightly history job (harness/ci/loopbench-regress.yml,
# harness/ci/loopbench-nightly.yml). action-validator checks each against the
# workflow schema (and the actions it names, their inputs).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_node
cd "$SOURCE_ROOT"
for workflow in .github/workflows/*.yml harness/ci/*.yml; do
  node "$LOOPBENCH_NPM_DIR/node_modules/@action-validator/cli/cli.mjs" "$workflow"
  echo "ok: $workflow"
done
