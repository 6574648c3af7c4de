#!/usr/bin/env bash
# Hostile pull request, files (docs/reliability.md): what someone who can plant links
# beside an operator's config can make loopbench do to other files. The lock path
# planted as a link to a victim; one config reached through two links by two campaigns;
# links planted at the old predictable temporary names PATH.lbtmp.PID; the temporary
# names themselves; a target that replaces its config with a link to a victim. Each checks that the victim is untouched (bytes and mode), the config
# is back byte for byte with its mode, and nothing is left running.
source "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/real" "$TMP/a" "$TMP/b"
# The real path: the journal and the temporary files are named after it.
cfg=$(realpath "$TMP")/real/app.json
printf '{\n  "server": { "idleWait": 0 }\n}\n' >"$cfg"
chmod 640 "$cfg"
cp "$cfg" "$TMP/original"
ln -s ../real/app.json "$TMP/a/app.json"
ln -s ../real/app.json "$TMP/b/app.json"
victim=$TMP/victim
printf 'precious\n' >"$TMP/victim.orig"
# fresh_victim: the victim as it was, so that each section stands alone.
fresh_victim() { cp "$TMP/victim.orig" "$victim" && chmod 600 "$victim"; }
fresh_victim

# profile NAME FILE: a burner whose knob is a key of FILE (relative to $TMP).
profile() {
  cat >"$TMP/$1.json" <<JSON
{ "name": "$1", "command": ["$BURNER", "--share", "0.02", "--forever"],
  "knob": { "name": "idle", "values": ["0", "2"],
            "config": { "file": "$2", "path": ["server", "idleWait"], "type": "number" } },
  "ready": { "delay": 0 }, "stop": { "grace": 1 } }
JSON
}
profile direct real/app.json
profile via-a a/app.json
profile via-b b/app.json

victim_intact() { cmp -s "$victim" "$TMP/victim.orig" && [ "$(stat -c %a "$victim")" = 600 ]; }
config_intact() {
  [ -f "$cfg" ] && [ ! -L "$cfg" ] && cmp -s "$cfg" "$TMP/original" && [ "$(stat -c %a "$cfg")" = 640 ]
}
# Nothing of loopbench's left beside the config (journal, lock, temporary files).
no_leftovers() { [ -z "$(ls -A "$TMP/real" | grep -v '^app.json$')" ]; }
# wait_for FILE PATTERN: until FILE has a line matching PATTERN (10 s at most).
wait_for() {
  for _ in $(seq 1 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  return 1
}

# --- 1. the lock path planted as a link to a victim -------------------------------------
ln -s "$victim" "$TMP/real/.app.json.loopbench-lock"
rc=0
"$LOOPBENCH" run "$TMP/direct.json" -n 1 -w 0 -t 0.3 -o "$TMP/lock" >/dev/null 2>"$TMP/lock.err" || rc=$?
check "a lock path that is a symlink: the run is refused (exit 1)" [ "$rc" -eq 1 ]
check "  ... saying the lock file is a symbolic link" \
  grep -q "lock file '.*/real/.app.json.loopbench-lock' is a symbolic link" "$TMP/lock.err"
check "  ... the victim untouched (bytes and mode)" victim_intact
check "  ... the link left where it was, the config untouched" \
  bash -c "[ -L '$TMP/real/.app.json.loopbench-lock' ] && cmp -s '$cfg' '$TMP/original'"
rm -f "$TMP/real/.app.json.loopbench-lock"
# A hard link to the victim would take the pid into it just as well.
fresh_victim
ln "$victim" "$TMP/real/.app.json.loopbench-lock"
rc=0
"$LOOPBENCH" run "$TMP/direct.json" -n 1 -w 0 -t 0.3 -o "$TMP/hard" >/dev/null 2>"$TMP/hard.err" || rc=$?
check "a lock path that is a hard link to a victim: refused (exit 1), the victim untouched" \
  bash -c "[ $rc -eq 1 ] && grep -q 'not a regular file of its own' '$TMP/hard.err' &&
    cmp -s '$victim' '$TMP/victim.orig'"
rm -f "$TMP/real/.app.json.loopbench-lock"

# --- 2. one config through two links: the second campaign is locked out -----------------
"$LOOPBENCH" run "$TMP/via-a.json" -n 1 -w 0.2 -t 2 -o "$TMP/first" >"$TMP/first.out" 2>"$TMP/first.err" &
lb=$!
PIDS+=("$lb")
wait_for "$TMP/first.err" ": sample" || true
rc=0
"$LOOPBENCH" run "$TMP/via-b.json" -n 1 -w 0 -t 0.3 -o "$TMP/second" >/dev/null 2>"$TMP/second.err" || rc=$?
check "the same config through another link, while a campaign edits it: refused (exit 1)" [ "$rc" -eq 1 ]
check "  ... naming the file and the pid holding it" \
  grep -q "config '.*b/app.json' is in use by another loopbench (pid $lb, lock '.*/real/.app.json.loopbench-lock')" \
  "$TMP/second.err"
rc=0
"$LOOPBENCH" restore "$TMP/b/app.json" >/dev/null 2>"$TMP/restore-busy.err" || rc=$?
check "  ... and so is restore through that link (exit 1)" bash -c "[ $rc -eq 1 ] &&
  grep -q 'in use by another loopbench (pid $lb' '$TMP/restore-busy.err'"
rc=0
wait "$lb" || rc=$?
check "  ... the first campaign is not disturbed (exit 0)" [ "$rc" -eq 0 ]
check "  ... the config back byte for byte with its mode, the links still links, nothing left" \
  bash -c "$(declare -f config_intact no_leftovers); cfg='$cfg' TMP='$TMP'
    config_intact && no_leftovers && [ -L '$TMP/a/app.json' ] && [ -L '$TMP/b/app.json' ]"

# --- 3. links planted at the old predictable temporary names ----------------------------
fresh_victim
# loopbench wrote PATH.lbtmp.PID, following a link there: the shell plants one at the
# names of the config and of its journal for its own pid, then becomes loopbench.
rc=0
umask 077
sh -c 'ln -s "$1" "$2.lbtmp.$$" && ln -s "$1" "$3.lbtmp.$$" && shift 3 && exec "$@"' sh \
  "$victim" "$cfg" "$(dirname "$cfg")/.app.json.loopbench-journal" \
  "$LOOPBENCH" run "$TMP/direct.json" -n 1 -w 0 -t 0.3 -o "$TMP/planted" \
  >/dev/null 2>"$TMP/planted.err" || rc=$?
umask 022
check "links planted at PATH.lbtmp.PID: the campaign runs (exit 0)" [ "$rc" -eq 0 ]
check "  ... the victim neither written nor chmodded through them" victim_intact
check "  ... the config a regular file again, byte for byte, mode 640 under umask 077" config_intact
check "  ... the planted links left as they were" \
  bash -c "[ \$(find '$TMP/real' -name '*.lbtmp.*' -type l | wc -l) -eq 2 ]"
find "$TMP/real" -name '*.lbtmp.*' -type l -delete

# --- 4. the temporary names are random and created exclusively --------------------------
if [ -n "${LOOPBENCH_VALGRIND:-}" ] || ! command -v strace >/dev/null ||
  ! strace -o /dev/null true 2>/dev/null; then
  echo "skip: section 4 needs strace that may trace (and no valgrind)"
elif [ "$(id -u)" != 0 ]; then
  # loopbench makes itself non-dumpable: strace of another uid than root then reads none of
  # its memory, and prints the paths opened as addresses.
  echo "skip: section 4 needs root: strace cannot read a non-dumpable loopbench's paths"
else
  rc=0
  # LeakSanitizer cannot run under ptrace.
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=openat -o "$TMP/strace.log" \
    "$LOOPBENCH" run "$TMP/direct.json" -n 1 -w 0 -t 0.3 -o "$TMP/traced" >/dev/null 2>&1 || rc=$?
  grep '\.lbtmp\.' "$TMP/strace.log" | grep -v ENOENT >"$TMP/tmpnames" || true
  check "temporary files: the campaign wrote some (exit 0)" \
    bash -c "[ $rc -eq 0 ] && [ \$(wc -l <'$TMP/tmpnames') -ge 3 ]"
  check "  ... each named PATH.lbtmp.<16 random hex digits>, none twice" bash -c "
    [ \$(grep -cE '\\.lbtmp\\.[0-9a-f]{16}\"' '$TMP/tmpnames') -eq \$(wc -l <'$TMP/tmpnames') ] &&
    [ \$(grep -oE '\\.lbtmp\\.[0-9a-f]+' '$TMP/tmpnames' | sort | uniq -d | wc -l) -eq 0 ]"
  check "  ... each created with O_CREAT|O_EXCL|O_NOFOLLOW" bash -c "
    [ \$(grep -c 'O_CREAT|O_EXCL|O_NOFOLLOW' '$TMP/tmpnames') -eq \$(wc -l <'$TMP/tmpnames') ]"
  check "  ... the config intact afterwards" config_intact
fi

# --- 5. a target that replaces the config with a link to a victim ----------------------
# Every write goes where the config was at the start, replacing what is there: never
# through a link the target left.
fresh_victim
cat >"$TMP/replacer.json" <<JSON
{ "name": "replacer", "command": ["sh", "-c",
    "ln -s '$victim' '$cfg.new' && mv -f '$cfg.new' '$cfg' && echo ready && exec sleep 30"],
  "knob": { "name": "idle", "values": ["0", "2"],
            "config": { "file": "real/app.json", "path": ["server", "idleWait"], "type": "number" } },
  "ready": { "log": "^ready", "timeout": 5 }, "stop": { "grace": 1 } }
JSON
rc=0
"$LOOPBENCH" run "$TMP/replacer.json" -n 1 -w 0 -t 0.3 -o "$TMP/replaced" >/dev/null \
  2>"$TMP/replaced.err" || rc=$?
check "a target that makes the config a link to a victim: the campaign runs (exit 0)" [ "$rc" -eq 0 ]
check "  ... the victim neither written nor chmodded through it" victim_intact
check "  ... the config a regular file again, byte for byte with its mode, nothing left" \
  bash -c "$(declare -f config_intact no_leftovers); cfg='$cfg' TMP='$TMP'
    config_intact && no_leftovers"

check "nothing left running" no_process_from "$TMP"
