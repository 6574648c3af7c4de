#!/usr/bin/env bash
# Config files survive a loopbench that dies: SIGKILL mid-sample leaves a journal,
# and `loopbench restore` or the next `loopbench run` puts the original back byte for
# byte, even though refshard rewrote its config at start-up; a file changed by
# someone else since is left alone and the message names the journal and says how to
# proceed: `restore --force` keeps it beside the original it puts back. See
# docs/reliability.md (tests/e2e/restore-race.sh: a target killed mid-save).
source "$(dirname "$0")/lib.sh"

# A private copy of the reference profile, as in run.sh.
mkdir -p "$TMP/ref"
cp "$SOURCE_ROOT/profiles/refshard.json" "$SOURCE_ROOT/profiles/refshard.config.json" "$TMP/ref/"
cp "$REFSHARD" "$TMP/ref/refshard"
sed -i 's|{loopbench_dir}/refshard|./refshard|' "$TMP/ref/refshard.json"
cfg=$TMP/ref/refshard.config.json
journal=$TMP/ref/.refshard.config.json.loopbench-journal
cp "$cfg" "$TMP/original.json"

# The refshards running in this test's directory: their command line is relative
# (./refshard), so pgrep -f "$TMP" cannot find them; their working directory can.
refdir=$(cd "$TMP/ref" && pwd -P)
our_refshards() {
  local pid
  for pid in $(pgrep -x refshard || true); do
    if [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$refdir" ]; then echo "$pid"; fi
  done
}
no_refshard() { [ -z "$(our_refshards)" ]; }

# killed_mid_sample NAME: start a campaign and SIGKILL loopbench while it samples; its
# target dies with it (PR_SET_PDEATHSIG), leaving the config edited and the journal.
killed_mid_sample() {
  local name=$1 lb pid
  "$LOOPBENCH" run "$TMP/ref/refshard.json" -s 0,2 -n 1 -w 1 -t 30 -o "$TMP/$name" \
    2>"$TMP/$name.err" >/dev/null &
  lb=$!
  PIDS+=("$lb")
  for _ in $(seq 1 200); do grep -q ": sample" "$TMP/$name.err" 2>/dev/null && break; sleep 0.05; done
  kill -9 "$lb"
  wait "$lb" 2>/dev/null || true
  for _ in $(seq 1 100); do no_refshard && break; sleep 0.05; done
  check "SIGKILL of loopbench takes its target with it ($name)" no_refshard
}

# --- 1. SIGKILL, then loopbench restore FILE ------------------------------------------
killed_mid_sample k1
check "SIGKILL leaves the config edited" bash -c "! cmp -s '$cfg' '$TMP/original.json'"
check "  ... and a journal beside it" test -f "$journal"
check "  ... after refshard rewrote the config itself" \
  grep -rqs "missing setting" "$TMP/k1/runs"
rc=0
"$LOOPBENCH" restore "$cfg" >"$TMP/r1.out" 2>"$TMP/r1.err" || rc=$?
check "restore FILE exits 0" [ "$rc" -eq 0 ]
check "  ... config byte-identical to the original" cmp -s "$cfg" "$TMP/original.json"
check "  ... journal removed" test ! -e "$journal"
check "  ... saying so" grep -q "restored its original" "$TMP/r1.out"
rc=0
"$LOOPBENCH" restore "$cfg" >"$TMP/r1b.out" 2>&1 || rc=$?
check "restore again: nothing to do, exit 0" [ "$rc" -eq 0 ]
check "  ... saying so" grep -q "nothing to restore" "$TMP/r1b.out"

# --- 2. SIGKILL, then the next run restores first and says so ----------------------------
killed_mid_sample k2
check "SIGKILL again leaves a journal" test -f "$journal"
rc=0
"$LOOPBENCH" run "$TMP/ref/refshard.json" -s 2 -n 1 -w 0 -t 1 -o "$TMP/next" -q \
  >/dev/null 2>"$TMP/next.err" || rc=$?
check "the next run exits 0" [ "$rc" -eq 0 ]
check "  ... saying it restored the config from the journal" \
  grep -q "restored from journal '$journal'" "$TMP/next.err"
check "  ... config byte-identical to the original after it" cmp -s "$cfg" "$TMP/original.json"
check "  ... journal removed" test ! -e "$journal"

# --- 3. changed by someone else after the SIGKILL: never overwritten ----------------
killed_mid_sample k3
jq '.edited = "by the operator"' "$TMP/original.json" >"$cfg"
cp "$cfg" "$TMP/edited.json"
rc=0
"$LOOPBENCH" restore "$TMP/ref" >/dev/null 2>"$TMP/r3.err" || rc=$?
check "restore DIR refuses a file changed by someone else (exit 1)" [ "$rc" -eq 1 ]
check "  ... naming the journal that holds the original" grep -q "$journal" "$TMP/r3.err"
check "  ... the operator's file untouched" cmp -s "$cfg" "$TMP/edited.json"
check "  ... the journal kept" test -f "$journal"
rc=0
"$LOOPBENCH" run "$TMP/ref/refshard.json" -s 2 -n 1 -w 0 -t 1 -o "$TMP/refused" -q \
  >/dev/null 2>"$TMP/run3.err" || rc=$?
check "run refuses it too (exit 1)" [ "$rc" -eq 1 ]
check "  ... naming the journal" grep -q "$journal" "$TMP/run3.err"
check "  ... the operator's file untouched" cmp -s "$cfg" "$TMP/edited.json"
check "  ... and saying in one line how to proceed" bash -c "
  [ \$(wc -l <'$TMP/r3.err') -eq 1 ] &&
  grep -qF \"to put it back, keeping this content beside it: loopbench restore --force '$cfg'\" '$TMP/r3.err'"

# --- 3c. restore --force: the content kept beside it, exactly, never through a link ----
# Links to a victim wait at the names the kept file could take in the next 10 s (so under
# valgrind too): it goes to a new name, and the victim is untouched.
echo "the victim's own" >"$TMP/victim"
for s in $(seq 0 9); do
  ln -s "$TMP/victim" "$cfg.loopbench-kept-$(date -u -d "@$(($(date +%s) + s))" +%Y%m%dT%H%M%SZ)"
done
ls "$TMP/ref" >"$TMP/before-force.ls"
rc=0
"$LOOPBENCH" restore --force "$cfg" >"$TMP/force.out" 2>"$TMP/force.err" || rc=$?
kept=$(comm -13 "$TMP/before-force.ls" <(ls "$TMP/ref") | grep '^refshard\.config\.json\.loopbench-kept-' || true)
check "restore --force exits 0" [ "$rc" -eq 0 ]
check "  ... the config byte-identical to the original, its mode kept" bash -c "
  cmp -s '$cfg' '$TMP/original.json' && [ \$(stat -c %a '$cfg') = \$(stat -c %a '$TMP/original.json') ]"
check "  ... the journal removed" test ! -e "$journal"
check "  ... what the file held kept beside it: one new file, exactly the operator's edit" \
  bash -c "[ \$(printf '%s\n' '$kept' | wc -l) -eq 1 ] && [ -f '$TMP/ref/$kept' ] &&
    [ ! -L '$TMP/ref/$kept' ] && cmp -s '$TMP/ref/$kept' '$TMP/edited.json'"
check "  ... mode 0600" [ "$(stat -c %a "$TMP/ref/$kept")" = 600 ]
check "  ... never written through a link at its name: the victim untouched" \
  bash -c "[ \"\$(cat '$TMP/victim')\" = \"the victim's own\" ]"
check "  ... saying both paths" bash -c "
  grep -qF \"'$cfg': restored its original\" '$TMP/force.out' && grep -qF \"'$TMP/ref/$kept'\" '$TMP/force.out'"
rm -f "$TMP/ref/$kept" "$cfg".loopbench-kept-*
rc=0
"$LOOPBENCH" restore --force "$cfg" >"$TMP/force2.out" 2>&1 || rc=$?
check "restore --force with nothing to restore: exit 0, nothing kept" bash -c "
  [ $rc -eq 0 ] && grep -q 'nothing to restore' '$TMP/force2.out' &&
  [ -z \"\$(ls '$TMP/ref' | grep loopbench-kept)\" ]"

# --- 3b. a config reached through a link, which refshard saves by renaming over it ---
# The run's settings reach refshard through the link, and the campaign leaves the link and
# the bytes it led to as they were.
mkdir -p "$TMP/shared"
cp "$cfg" "$TMP/before-linked.json"
mv "$cfg" "$TMP/shared/refshard.config.json"
ln -s ../shared/refshard.config.json "$cfg"
rc=0
"$LOOPBENCH" run "$TMP/ref/refshard.json" -s 0,2 -n 1 -w 0 -t 1 -o "$TMP/linked" -q \
  >/dev/null 2>"$TMP/linked.err" || rc=$?
check "a linked config: the run exits 0" [ "$rc" -eq 0 ]
check "  ... refshard saved it by renaming a file over the link" \
  grep -rqs "missing setting" "$TMP/linked/runs"
check "  ... each run read its own setting (idle wait 0 spins, 2 sleeps)" \
  [ "$(jq '[.runs[] | {(.setting): .cpu_percent}] | add | .["0"] > 5 * .["2"]' "$TMP/linked/results.json")" = true ]
check "  ... the link put back as it was" \
  [ "$(readlink "$cfg")" = ../shared/refshard.config.json ]
check "  ... the file it leads to byte-identical to the original" \
  cmp -s "$TMP/shared/refshard.config.json" "$TMP/before-linked.json"
# Killed once the target is ready: the link is back already, and restore recovers the
# file it leads to from the journal beside that file.
killed_mid_sample k-linked
check "SIGKILL with a linked config leaves the link a link" \
  [ "$(readlink "$cfg")" = ../shared/refshard.config.json ]
check "  ... and a journal beside the file it leads to" \
  test -f "$TMP/shared/.refshard.config.json.loopbench-journal"
rc=0
"$LOOPBENCH" restore "$cfg" >/dev/null 2>"$TMP/r-linked.err" || rc=$?
check "  ... restore through the link exits 0" [ "$rc" -eq 0 ]
check "  ... the file byte-identical to the original, the link kept" bash -c "
  cmp -s '$TMP/shared/refshard.config.json' '$TMP/before-linked.json' &&
  [ \"\$(readlink '$cfg')\" = ../shared/refshard.config.json ]"
rm "$cfg"
mv "$TMP/shared/refshard.config.json" "$cfg"

# --- 4. usage ---------------------------------------------------------------------
check "restore --help prints its usage" bash -c "'$LOOPBENCH' restore --help | grep -q '^usage: loopbench restore'"
rc=0; "$LOOPBENCH" restore --frob "$cfg" >/dev/null 2>&1 || rc=$?
check "restore with an unknown option exits 2" [ "$rc" -eq 2 ]
rc=0; "$LOOPBENCH" restore >/dev/null 2>&1 || rc=$?
check "restore without an argument exits 2" [ "$rc" -eq 2 ]
rc=0; "$LOOPBENCH" restore "$TMP/nonexistent" >/dev/null 2>&1 || rc=$?
check "restore of no such file exits 2" [ "$rc" -eq 2 ]
rc=0; "$LOOPBENCH" restore "$TMP/ref" >"$TMP/r4.out" 2>&1 || rc=$?
check "restore DIR without journals exits 0" [ "$rc" -eq 0 ]

check "no refshard left" no_refshard
[ "$fails" -eq 0 ]
