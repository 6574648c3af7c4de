#!/usr/bin/env bash
# An installed loopbench. `meson install` puts loopbench, refshard, the profiles,
# loopbench(1) and the bash completion in place; the page renders; the completion offers
# the commands and each command's options. Then `loopbench run` with no argument, by a
# user who cannot write the install prefix (uid 65534, through setpriv), completes the
# built-in campaign from the installed refshard and profile, edits a copy of the config
# in that user's state directory, writes its results under the current directory and
# changes no installed file; a changed installed config reaches the copy at the next run.
source "$(dirname "$0")/lib.sh"
: "${BUILD_ROOT:?run through meson test}"

option() { meson introspect --buildoptions "$BUILD_ROOT" | jq -r --arg n "$1" '.[] | select(.name == $n) | .value'; }
DEST=$TMP/dest
meson install -C "$BUILD_ROOT" --destdir "$DEST" --no-rebuild --quiet >"$TMP/install.log" 2>&1
PREFIX=$DEST$(option prefix)
BIN=$PREFIX/$(option bindir)
DATA=$PREFIX/$(option datadir)
MAN1=$PREFIX/$(option mandir)/man1/loopbench.1
COMPLETION=$DATA/bash-completion/completions/loopbench
for f in "$BIN/loopbench" "$BIN/refshard" "$DATA/loopbench/profiles/refshard.json" \
    "$DATA/loopbench/profiles/refshard.config.json" "$DATA/loopbench/profiles/redis.json" \
    "$MAN1" "$PREFIX/$(option mandir)/man1/refshard.1" "$COMPLETION"; do
  check "meson install put ${f#"$PREFIX"/} in place" [ -f "$f" ]
done
check "  ... the programs executable" test -x "$BIN/loopbench" -a -x "$BIN/refshard"

if command -v man >/dev/null; then
  check "man -l renders the installed page" \
    bash -c "MANWIDTH=80 man -l '$MAN1' 2>/dev/null | grep -q '^ *loopbench  *publish  *REPORT.md'"
fi

# complete WORDS...: what the completion offers for the last word, one a line.
complete() {
  PATH=$BIN:$PATH bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _loopbench; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$@"
}
check "completion: 'loopbench <TAB>' offers run and report" \
  bash -c "[ \"\$(grep -cx -e run -e report <<<'$(complete loopbench "")')\" -eq 2 ]"
check "completion: 'loopbench run --re<TAB>' offers --repeat and --resume" \
  [ "$(complete loopbench run --re | tr '\n' ' ')" = "--repeat --resume " ]
check "completion: 'loopbench run --order <TAB>' offers the orders" \
  [ "$(complete loopbench run --order "" | tr '\n' ' ')" = "interleave random grouped duet " ]
mkdir -p "$TMP/pick/c1" && touch "$TMP/pick/a.json" "$TMP/pick/b.txt"
check "completion: 'loopbench run <TAB>' offers profiles and directories" \
  [ "$(cd "$TMP/pick" && complete loopbench run "" | sort | tr '\n' ' ')" = "a.json c1 " ]
check "completion: 'loopbench report <TAB>' offers directories" \
  [ "$(cd "$TMP/pick" && complete loopbench report "" | tr '\n' ' ')" = "c1 " ]

can_be_nobody || exit 0
chmod 755 "$TMP"
mkdir -p "$TMP/home" "$TMP/cwd"
chown "$NOBODY:$NOBODY" "$TMP/home" "$TMP/cwd"
nobody_in_cwd() { (cd "$TMP/cwd" && as_nobody env -u XDG_STATE_HOME HOME="$TMP/home" "$@"); }
sums() { (cd "$DEST" && find . -type f -exec sha256sum {} + | sort); }
before=$(sums)
check "the unprivileged user cannot write the installed profiles" \
  bash -c "! setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups test -w '$DATA/loopbench/profiles'"
rc=0
nobody_in_cwd "$BIN/loopbench" run -w 1 -t 2 -n 1 -q >"$TMP/run.out" 2>"$TMP/run.err" || rc=$?
check "installed 'loopbench run', no argument, as uid $NOBODY: exit 0" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || cat "$TMP/run.err"
results=$(ls -d "$TMP"/cwd/results/refshard-*/results.json 2>/dev/null | head -1)
check "  ... its results under the current directory (results/refshard-*/)" [ -n "$results" ]
check "  ... the built-in campaign: idle wait 0 and 2, each run ok" \
  jq -e '[.runs[].setting] == ["0", "2"] and all(.runs[]; .status == "ok")' "$results"
STATE=$TMP/home/.local/state/loopbench
# The installed refshard is the only one there is: {loopbench_dir} is the installed bin.
check "  ... from a copy of the installed profile in ~/.local/state/loopbench" \
  jq -e --arg state "$STATE/refshard.json" '.profile.path == $state' "$results"
check "  ... the copy of the config, the user's, put back as it was" \
  bash -c "[ \"\$(stat -c %u '$STATE/refshard.config.json')\" = $NOBODY ] &&
    cmp -s '$STATE/refshard.config.json' '$DATA/loopbench/profiles/refshard.config.json'"
check "  ... no installed file changed" [ "$(sums)" = "$before" ]

# A new version of the installed config reaches the copy at the next run.
jq '.settings["server.note"] = "v2"' "$DATA/loopbench/profiles/refshard.config.json" >"$TMP/v2.json"
cp "$TMP/v2.json" "$DATA/loopbench/profiles/refshard.config.json"
rc=0
nobody_in_cwd "$BIN/loopbench" run -s 2 -w 0 -t 0.5 -n 1 -q >/dev/null 2>"$TMP/run2.err" || rc=$?
check "after the installed config changed: exit 0, the copy refreshed" \
  bash -c "[ $rc -eq 0 ] && cmp -s '$STATE/refshard.config.json' '$TMP/v2.json'"
