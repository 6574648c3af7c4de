# Sourced by tests/e2e/lib.sh and tests/bench/readback.sh; needs LOOPBENCH, REFSHARD and
# SOURCE_ROOT.
# variants_campaign OUT [WORK]: a real campaign in OUT, as cheap as they come: two builds of
# refshard (variants base and head, in WORK, default $TMP) at idle wait 0 and 2, one round.
variants_campaign() {
  local work=${2:-$TMP} v
  for v in base head; do
    mkdir -p "$work/$v"
    ln -sf "$REFSHARD" "$work/$v/refshard"
    cp "$SOURCE_ROOT/profiles/refshard.config.json" "$work/$v/"
  done
  jq '.command[0] = "{variant_dir}/refshard"' "$SOURCE_ROOT/profiles/refshard.json" >"$work/refshard.json"
  (cd "$work" && "$LOOPBENCH" run refshard.json -s 0,2 -n 1 -w 0 -t 0.5 --variant base=base \
    --variant head=head -o "$1" -q >/dev/null)
}
