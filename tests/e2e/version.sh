#!/usr/bin/env bash
# One version: meson.build's, with the commit loopbench was built from when built from a
# git checkout, in --version, results.json and the report.
source "$(dirname "$0")/lib.sh"

version=$(sed -n "s/^ *version : '\([^']*\)',$/\1/p" "$SOURCE_ROOT/meson.build" | head -1)
out=$("$LOOPBENCH" --version)
echo "$out"
# As meson's vcs_tag saw the tree at build time (`git describe --always --dirty --tags`), but
# "-dirty" judged without the refshard configs: other tests' campaigns edit them, and put
# them back, while this one runs beside them (once it read "-dirty" of a clean clone).
if describe=$(git -C "$SOURCE_ROOT" describe --always --tags 2>/dev/null); then
  git -C "$SOURCE_ROOT" diff --quiet HEAD -- . ':(exclude)profiles/*.config.json' ||
    describe="$describe-dirty"
  commit=${describe##*-g}
  commit=${commit%-dirty}
  dirty=""
  [ "${describe%-dirty}" != "$describe" ] && dirty=", dirty"
  check "--version: meson.build's version, the commit built from" \
    [ "$out" = "loopbench $version (linux, commit $commit$dirty)" ]
else
  check "--version: meson.build's version alone, from a tarball" [ "$out" = "loopbench $version (linux)" ]
fi

# a copy of the profile and its config: the source tree's config is one campaign's at a time,
# and other tests run beside this one
mkdir -p "$TMP/ref"
cp "$SOURCE_ROOT/profiles/refshard.json" "$SOURCE_ROOT/profiles/refshard.config.json" "$TMP/ref/"
"$LOOPBENCH" run "$TMP/ref/refshard.json" -s 2 -n 1 -w 0.5 -t 0.5 -o "$TMP/c" -q >/dev/null
"$LOOPBENCH" report "$TMP/c" --no-plots -o "$TMP/report.md" >/dev/null
if [ -n "${describe:-}" ]; then
  check "results.json: loopbench.commit" jq -e --arg c "${describe##*-g}" \
    '.loopbench.commit == $c' "$TMP/c/results.json"
  check "the report's footnote names version and commit" grep -q \
    "loopbench $version (commit ${describe##*-g})\." "$TMP/report.md"
else
  check "results.json: loopbench.commit null" jq -e '.loopbench.commit == null' "$TMP/c/results.json"
fi
