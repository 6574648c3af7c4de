#!/usr/bin/env bash
# Byte-identity of every output across a change of code: tests/golden.sh OLD NEW [WORK]
# (OLD and NEW: two loopbench binaries) makes a handful of real refshard campaigns once (with
# OLD, kept in WORK/campaigns; delete that directory to make them again), renders each with
# both binaries (report md, csv, json, the terminal table run prints, compare DIR, compare
# A B, a history gate, compare --pool, history; md, json and text; every command's help)
# and prints the difference. Exit 0 when every output is the same byte for byte. OLD's
# refshard (beside it) is the target.
set -euo pipefail
old=$(realpath "$1")
new=$(realpath "$2")
work=$(realpath -m "${3:-${TMPDIR:-/tmp}/loopbench-golden}")
src=$(cd "$(dirname "$0")/.." && pwd)
camps=$work/campaigns

make_campaigns() {
  local t=$camps/target v
  mkdir -p "$t"
  cp "$src/profiles/refshard.json" "$src/profiles/refshard.config.json" \
    "$src/profiles/refshard-rtt.json" "$src/profiles/refshard-rtt.config.json" "$t/"
  cp "$(dirname "$old")/refshard" "$t/refshard"
  sed -i 's|{loopbench_dir}/refshard|./refshard|' "$t/refshard.json" "$t/refshard-rtt.json"
  for v in base head; do
    mkdir -p "$t/$v"
    ln -s ../refshard "$t/$v/refshard"
    cp "$src/profiles/refshard.config.json" "$t/$v/"
  done
  jq '.command[0] = "{variant_dir}/refshard"' "$src/profiles/refshard.json" >"$t/variants.json"
  local run=("$old" run -w 0.3 -t 1 -q)
  (cd "$t" &&
    for c in plain1 plain2 plain3; do "${run[@]}" refshard.json -s 0,2 -n 2 -o "$camps/$c"; done &&
    "${run[@]}" refshard.json -s 0,2,8 -n 3 -o "$camps/three" &&
    "${run[@]}" refshard-rtt.json -s 0,2 -n 2 -o "$camps/rtt" &&
    for c in ab1 ab2; do
      "${run[@]}" variants.json -s 0,2 -n 2 --variant base=base --variant head=head -o "$camps/$c"
    done &&
    "${run[@]}" variants.json -s 2 --repeat auto=4 --variant base=base --variant head=head \
      -o "$camps/auto" &&
    "${run[@]}" variants.json -s 0,2 -n 2 --order duet --variant base=base --variant head=head \
      -o "$camps/duet") >/dev/null 2>&1
  rm -rf "$t"
}

# render BIN OUT: every output of BIN for the campaigns, in OUT (run from OUT, so the paths
# it prints are the same for both binaries)
render() {
  local bin=$1 out=$2 c f
  rm -rf "$out"
  mkdir -p "$out"
  cp -r "$camps"/. "$out/"
  cd "$out"
  for c in */; do
    c=${c%/}
    [ -f "$c/results.json" ] || continue
    for f in md csv json; do
      "$bin" report "$c" -f "$f" >"$c.report.$f" 2>&1 || echo "exit $?" >>"$c.report.$f"
    done
    for f in md json; do
      "$bin" compare "$c" -f "$f" >"$c.compare.$f" 2>&1 || echo "exit $?" >>"$c.compare.$f"
    done
    cp -r "$c" "$c.resumed"
    "$bin" run --resume "$c.resumed" 2>&1 | grep -v '^warning: load average' >"$c.terminal" || true
    rm -rf "$c.resumed"
  done
  local -A cmds=(
    [ab]="compare plain1 plain2"
    [hist]="compare plain1 plain2 plain3"
    [variants]="compare ab1 ab2"
    [pool]="compare --pool ab1 ab2 duet"
    [history]="history plain1 plain2 plain3 three"
    [vhistory]="history ab1 ab2 auto duet"
  )
  for c in "${!cmds[@]}"; do
    for f in md json text; do
      # shellcheck disable=SC2086
      "$bin" ${cmds[$c]} -f "$f" >"$c.$f" 2>&1 || echo "exit $?" >>"$c.$f"
    done
  done
  "$bin" --help >help 2>&1 || echo "exit $?" >>help
  sed -n 's/^  \([a-z]*\)  .*/\1/p' help | while IFS= read -r c; do
    "$bin" help "$c" >"help.$c" 2>&1 || echo "exit $?" >>"help.$c"
  done
  cd - >/dev/null
}

[ -d "$camps" ] || make_campaigns
render "$old" "$work/old"
render "$new" "$work/new"
if diff -r "$work/old" "$work/new"; then
  echo "golden: $(find "$work/new" -type f | wc -l) files byte-identical"
else
  echo "golden: outputs differ"
  exit 1
fi
