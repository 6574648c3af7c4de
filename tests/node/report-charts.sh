#!/usr/bin/env bash
# A real refshard campaign's report.md carries Mermaid charts (CPU per setting, CPU over
# the window) that Mermaid's own parser reads: what GitHub draws in a pull request.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/lib.sh"
need_node

mkdir -p "$TMP/ref"
cp "$SOURCE_ROOT/profiles/refshard.json" "$SOURCE_ROOT/profiles/refshard.config.json" "$TMP/ref/"
cp "$REFSHARD" "$TMP/ref/refshard"
sed -i 's|{loopbench_dir}/refshard|./refshard|' "$TMP/ref/refshard.json"
out=$TMP/c
"$LOOPBENCH" run "$TMP/ref/refshard.json" -s 0,2,8 -n 2 -w 1 -t 3 -o "$out" -q >/dev/null
rc=0
"$LOOPBENCH" report "$out" -o "$out/report.md" >/dev/null 2>"$TMP/report.err" || rc=$?
check "report exits 0" [ "$rc" -eq 0 ]
check "report.md holds at least 2 Mermaid charts, each parsed by Mermaid" \
  check_mermaid --min 2 "$out/report.md"
