# Shared by the tests that run on Node.js (sourced): the npm cache they read, and a skip
# (exit 77) when node or the cache is missing. The test command (harness/quickstart.sh
# test) fills the cache with harness/npm-deps.sh; loopbench itself needs none of it.
NODE_TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LOOPBENCH_NPM_DIR=${LOOPBENCH_NPM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/loopbench/npm}

need_node() {
  if ! command -v node >/dev/null || [ ! -f "$LOOPBENCH_NPM_DIR/.complete" ] ||
     ! cmp -s "$NODE_TESTS/package.json" "$LOOPBENCH_NPM_DIR/package.json"; then
    echo "skip: node, or the npm packages of tests/node/package.json in $LOOPBENCH_NPM_DIR," \
      "are missing: bash harness/npm-deps.sh tests/node $LOOPBENCH_NPM_DIR"
    exit 77
  fi
}

# check_mermaid [--min N] FILE.md...: Mermaid's parser reads every ```mermaid block.
check_mermaid() { node "$NODE_TESTS/check-mermaid.mjs" "$@"; }
