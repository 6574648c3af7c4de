#!/usr/bin/env bash
# run records the commit of what it ran: from the target's git work tree (clean, then
# dirty; each variant's), from --commit and $LOOPBENCH_COMMIT; and a repository's own
# configuration runs nothing while it is read.
source "$(dirname "$0")/lib.sh"

repo=$TMP/repo
mkdir -p "$repo"
cp "$SOURCE_ROOT/profiles/refshard.json" "$SOURCE_ROOT/profiles/refshard.config.json" "$repo/"
cp "$REFSHARD" "$repo/refshard"
sed -i 's|{loopbench_dir}/refshard|./refshard|' "$repo/refshard.json"
echo "refshard, as a project of its own" >"$repo/README"
# The test's own git keeps the hostile setting below from running too.
g() {
  git -C "$1" -c core.fsmonitor=false -c user.name=test -c user.email=test@example.org "${@:2}"
}
g "$repo" init -q
g "$repo" add -A
g "$repo" commit -q -m "refshard"
# A hostile repository: its own configuration names a program for git to run.
printf '#!/bin/sh\ntouch "%s/ran"\n' "$TMP" >"$TMP/hook"
chmod +x "$TMP/hook"
g "$repo" config core.fsmonitor "$TMP/hook"
sha=$(g "$repo" rev-parse HEAD)

campaign() { # campaign OUT [options...]
  (cd "$TMP" && env -u LOOPBENCH_COMMIT -u GITHUB_SHA "$LOOPBENCH" run "$repo/refshard.json" \
    -s 2 -n 1 -w 0.5 -t 1 -o "$TMP/$1" -q "${@:2}" >/dev/null)
}
campaign clean
check "a clean work tree: its HEAD, not dirty, from git" jq -e --arg sha "$sha" \
  '.campaign.commit == {"sha": $sha, "dirty": false, "source": "git"}' "$TMP/clean/results.json"
check "  ... and the repository's fsmonitor did not run" [ ! -e "$TMP/ran" ]
check "  ... nor did loopbench's config edit leave the tree dirty" \
  bash -c "[ -z \"\$(git -C '$repo' -c core.fsmonitor=false status --porcelain -uno)\" ]"

echo "a change not committed" >>"$repo/README"
campaign dirty
check "a tracked file changed: dirty" jq -e --arg sha "$sha" \
  '.campaign.commit == {"sha": $sha, "dirty": true, "source": "git"}' "$TMP/dirty/results.json"

campaign told --commit "${sha^^}"
check "--commit: as told, lowercased, not dirty" jq -e --arg sha "$sha" \
  '.campaign.commit == {"sha": $sha, "dirty": false, "source": "option"}' "$TMP/told/results.json"
other=0123456789abcdef0123456789abcdef01234567
(cd "$TMP" && LOOPBENCH_COMMIT="$other,dirty" "$LOOPBENCH" run "$repo/refshard.json" -s 2 -n 1 \
  -w 0.5 -t 1 -o "$TMP/env" -q >/dev/null)
check "\$LOOPBENCH_COMMIT wins over git" jq -e --arg sha "$other" \
  '.campaign.commit == {"sha": $sha, "dirty": true, "source": "env"}' "$TMP/env/results.json"
rc=0
(cd "$TMP" && "$LOOPBENCH" run "$repo/refshard.json" --commit abc123 -o "$TMP/bad" -q \
  >/dev/null 2>"$TMP/bad.err") || rc=$?
check "--commit abc123: refused, exit 2" [ "$rc" -eq 2 ]
check "  ... saying what was expected" grep -q "40 hex digits" "$TMP/bad.err"

# Variants: each its own work tree; the campaign's commit is the head's.
git -c core.fsmonitor=false clone -q "$repo" "$TMP/head"
cp "$repo/refshard" "$TMP/head/"
echo "head" >>"$TMP/head/README"
g "$TMP/head" commit -q -am "head"
head=$(g "$TMP/head" rev-parse HEAD)
campaign variants --variant "base=$repo" --variant "head=$TMP/head"
check "each variant's commit, the campaign's the head's" jq -e --arg b "$sha" --arg h "$head" '
  .campaign.variants[0].commit == {"sha": $b, "dirty": true, "source": "git"}
  and .campaign.variants[1].commit == {"sha": $h, "dirty": false, "source": "git"}
  and .campaign.commit == .campaign.variants[1].commit' "$TMP/variants/results.json"
check "the repository's fsmonitor never ran" [ ! -e "$TMP/ran" ]
