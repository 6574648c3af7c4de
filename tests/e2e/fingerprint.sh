#!/usr/bin/env bash
# Host fingerprints: recorded by run, recomputed on read, grouped by report, and compare
# across campaigns of different hosts warned about (an error under --same-host).
source "$(dirname "$0")/lib.sh"

# a copy of the profile and its config: the source tree's config is one campaign's at a time,
# and other tests run beside this one
mkdir -p "$TMP/ref"
cp "$SOURCE_ROOT/profiles/refshard.json" "$SOURCE_ROOT/profiles/refshard.config.json" "$TMP/ref/"
ImageOS=ubuntu24 ImageVersion=20250101.1 RUNNER_NAME='GitHub Actions 3' \
  "$LOOPBENCH" run "$TMP/ref/refshard.json" -s 2 -n 1 -w 0.5 -t 1 -o "$TMP/a" -q \
  >/dev/null
doc=$TMP/a/results.json
check "run records the runner from GitHub's variables" jq -e '.host.runner ==
  {"image_os": "ubuntu24", "image_version": "20250101.1", "name": "GitHub Actions 3"}' "$doc"
check "  ... and the cpuidle driver beside the other host facts" jq -e '.host | has("cpuidle_driver")' "$doc"
check "  ... and a fingerprint: 8 hex digits, a short name, the fields hashed" jq -e '
  .host.fingerprint | (.id | test("^[0-9a-f]{8}$")) and (.short | endswith(", ubuntu24 20250101.1"))
  and .fields == ["cpu_model", "logical_cpus", "kernel", "virtualization", "runner_image"]' "$doc"
id=$(jq -r .host.fingerprint.id "$doc")

# The same campaign on "another kernel": a hand-edited copy whose fingerprint in the file
# is left as it was, and one claimed for it: neither is believed.
mkdir "$TMP/b"
touch "$TMP/b/.handmade"
jq '.host.kernel = "5.4.0-1-generic" | .host.fingerprint.id = "deadbeef"' "$doc" >"$TMP/b/results.json"
cp -r "$TMP/a/runs" "$TMP/b/"

rc=0
"$LOOPBENCH" compare "$TMP/a" "$TMP/b" >"$TMP/ab.md" 2>"$TMP/ab.err" || rc=$?
cat "$TMP/ab.err"
check "compare across hosts still gates (exit 0 or 1)" [ "$rc" -le 1 ]
check "  ... warning on stderr, naming the field and both values" grep -q \
  "different hosts .*kernel '$(uname -r)' against '5.4.0-1-generic'" "$TMP/ab.err"
check "  ... on one line" [ "$(grep -c 'different hosts' "$TMP/ab.err")" -eq 1 ]
check "  ... and in the Markdown" grep -q '^\*\*Warning\*\*: BASE .* different hosts .*kernel `' "$TMP/ab.md"
rc=0
"$LOOPBENCH" compare "$TMP/a" "$TMP/b" --same-host >/dev/null 2>"$TMP/same.err" || rc=$?
check "--same-host: exit 2" [ "$rc" -eq 2 ]
check "  ... naming kernel" grep -q -- "--same-host: .*kernel" "$TMP/same.err"
rc=0
"$LOOPBENCH" compare "$TMP/a" "$TMP/a" --same-host >/dev/null 2>"$TMP/self.err" || rc=$?
check "--same-host with the same host: no warning, no error" \
  bash -c "[ $rc -le 1 ] && ! grep -q 'different hosts' '$TMP/self.err'"

# report over three campaigns: two hosts.
"$LOOPBENCH" report "$TMP/a" "$TMP/b" "$TMP/a" -f json -o "$TMP/r.json" >/dev/null
check "report groups hosts by fingerprint, the file's own id not believed" jq -e --arg id "$id" '
  (.fingerprints | length) == 2 and .fingerprints[0].id == $id and .fingerprints[0].hosts == [0, 2]
  and .fingerprints[1].hosts == [1] and .fingerprints[1].id != "deadbeef"
  and .hosts[1].fingerprint.id == .fingerprints[1].id' "$TMP/r.json"
"$LOOPBENCH" report "$TMP/a" "$TMP/b" --no-plots -o "$TMP/r.md" >/dev/null
check "  ... and its Markdown lists the groups" grep -q "^Hosts by fingerprint: \`$id\` .*; \`[0-9a-f]\{8\}\` " "$TMP/r.md"
