#!/usr/bin/env bash
# Hostile pull request, /proc and what a build leaves (docs/reliability.md, docs/ci.md): a
# target or a build reads no secret from the environment of loopbench or of its ancestors
# (a CI job's shell and runner hold the job's token and the paths of the files that steer
# it), and nothing a build starts outlives it.
#   1. loopbench is not dumpable: a process of its user reads neither its
#      /proc/PID/environ nor its fd/;
#   2. a target walking /proc/*/environ (and its parent's) finds no secret of loopbench's
#      ancestors: it runs in a PID namespace of its own, seeing its own tree alone; and a
#      loopbench killed by SIGKILL leaves nothing of that namespace running;
#   3. where no namespace can be made: as root, the target runs as nobody; otherwise the
#      run says plainly that its target could read those environments;
#   4. harness/ci/regress.sh: a build finds no token and no CI control file in any
#      environment it can read, and a daemon it leaves is killed when it ends, before it
#      could edit the report;
#   5. a repository a build planted in its output runs nothing when loopbench asks git of
#      its commit.
source "$(dirname "$0")/lib.sh"

SECRET=hostileProcSecret0123456789
MARK=$TMP/mark-hostile-proc
# The target: what it finds of the secret in every environment it may read (it is given
# the secret in two halves, so that no environment of its own holds it whole), how many
# processes it sees, its parent's environment; ready; then it sleeps.
cat >"$TMP/walker" <<'SH'
#!/bin/sh
wanted=$WANTED_A$WANTED_B
echo "uid $(id -u) pid $$ parent $PPID sees $(ls -d /proc/[0-9]* | wc -l) processes"
for f in /proc/[0-9]*/environ /proc/[0-9]*/task/[0-9]*/environ; do
  if tr '\0' '\n' <"$f" 2>/dev/null | grep -q "$wanted"; then echo "FOUND in $f"; fi
done
if [ "$PPID" -gt 0 ] && tr '\0' '\n' <"/proc/$PPID/environ" 2>/dev/null | grep -q "$wanted"; then
  echo "FOUND in the parent's"
fi
[ ! -x "$SETUID_ID" ] || echo "a set-user-ID root program runs as euid $("$SETUID_ID" -u)"
echo ready
exec sleep 60
SH
chmod 755 "$TMP/walker"
cat >"$TMP/walker.json" <<JSON
{ "name": "walker", "command": ["$TMP/walker"], "cwd": "$TMP",
  "env": { "WANTED_A": "${SECRET:0:10}", "WANTED_B": "${SECRET:10}",
    "SETUID_ID": "$TMP/setuid-id" },
  "knob": { "name": "x", "values": ["1"], "env": "KNOB" },
  "ready": { "log": "^ready$", "timeout": 30 }, "stop": { "grace": 1 } }
JSON
# The unprivileged side: uid 65534 when this test may switch to it (lib.sh), else this user.
# other CMD...: CMD as that user, OTHER_LOOPBENCH the loopbench it can run.
nobody=false
if nobody_setup; then nobody=true; fi
OTHER_LOOPBENCH=$LOOPBENCH
! $nobody || OTHER_LOOPBENCH=$NOBODY_LOOPBENCH
other() { if $nobody; then as_nobody "$@"; else "$@"; fi; }
doc() { echo "$TMP/$1/results.json"; }
# A set-user-ID root copy of id, which uid 65534 runs as root outside a namespace (where
# $TMP's file system honours the bit) and the walker runs where it is.
setuid=false
if $nobody; then
  install -o root -m 4755 "$(command -v id)" "$TMP/setuid-id"
  if [ "$(as_nobody "$TMP/setuid-id" -u)" = 0 ]; then
    setuid=true
  else
    rm "$TMP/setuid-id"
    echo "skip: set-user-ID programs: $TMP's file system ignores the bit"
  fi
fi

# --- 1. loopbench's own /proc files are not its user's to read -----------------------------
SECRET_HELD="$SECRET" other "$OTHER_LOOPBENCH" run "$TMP/walker.json" -n 1 -w 0 -t 3 \
  -o "$TMP/self" -q >/dev/null 2>"$TMP/self.err" &
job=$!
PIDS+=("$job")
for _ in $(seq 1 200); do [ -s "$TMP/self/runs/1-1/stdout.log" ] && break; sleep 0.05; done
# (the job is the shell that runs other: loopbench is the process named by its output)
lb=$(pgrep -f -- "-o $TMP/self" | head -n 1)
rc=0
other cat "/proc/$lb/environ" >"$TMP/self.environ" 2>/dev/null || rc=$?
check "loopbench's /proc/PID/environ: not readable by its own user (pid $lb, exit $rc)" \
  bash -c "[ -n '$lb' ] && [ $rc -ne 0 ] && ! grep -a -q '$SECRET' '$TMP/self.environ'"
rc=0
other ls "/proc/$lb/fd" >/dev/null 2>&1 || rc=$?
check "  ... nor its fd/ (exit $rc)" [ "$rc" -ne 0 ]
wait "$job" || true

# --- 2. a target reads no ancestor's environment -------------------------------------------
# walk NAME LOOPBENCH [RUNNER]: a run of the walker by LOOPBENCH whose parent shell holds
# the secret in its environment, the shell started through RUNNER (other, as_nobody).
walk() {
  local name=$1 lb=$2
  shift 2
  rc=0
  SECRET_HELD="$SECRET" "$@" bash -c '"$@"; exit $?' walk "$lb" run "$TMP/walker.json" \
    -n 1 -w 0 -t 0.5 -o "$TMP/$name" >"$TMP/$name.out" 2>"$TMP/$name.err" || rc=$?
  log=$TMP/$name/runs/1-1/stdout.log
  echo "$name: exit $rc; $(head -n 1 "$log" 2>/dev/null); isolation" \
    "$(jq -r '.runs[0].exit.isolation' "$(doc "$name")" 2>/dev/null)"
}
# Under valgrind the namespace's init, a copy of a valgrind process, keeps the environment
# block valgrind holds out of the program's reach, which the init cannot blank: a root
# target reads it there (pid 1). Natively the init's copy is blank.
init_block=
[ -z "${LOOPBENCH_VALGRIND:-}" ] || init_block='/proc/1/'
for who in self nobody; do
  if [ "$who" = self ]; then
    walk "walk-$who" "$LOOPBENCH"
  elif $nobody; then
    walk "walk-$who" "$NOBODY_LOOPBENCH" as_nobody
  else
    continue
  fi
  check "as $who: the run exits 0" [ "$rc" -eq 0 ]
  check "  ... its target walked /proc" grep -q '^ready$' "$log"
  check "  ... and found no secret of loopbench's ancestors" \
    bash -c "! grep FOUND '$log' | grep -v -q -F '${init_block:-none}' && ! grep -q '$SECRET' '$log'"
  check "  ... running in a PID namespace of its own (it sees only its own tree)" \
    bash -c "jq -e '.runs[0].exit.isolation == \"pid-namespace\"' '$(doc "walk-$who")' >/dev/null &&
      grep -q 'pid 2 parent 0 sees [1-5] processes' '$log'"
  check "  ... and the campaign warns of nothing about it" bash -c "! grep -q 'could read the environment' '$TMP/walk-$who.err'"
  if [ "$who" = nobody ] && $setuid; then
    check "  ... where a set-user-ID root program gains it nothing (outside, uid 65534 runs it as root)" \
      grep -qx 'a set-user-ID root program runs as euid 65534' "$log"
  fi
done

# A loopbench killed by SIGKILL mid-window leaves nothing of its target's namespace running,
# not even what the target double-forked away (which a subreaper gone no longer holds).
cat >"$TMP/escapee.json" <<JSON
{ "name": "escapee", "command": ["sh", "-c", "(setsid sh -c 'exec sleep 300' &); echo ready; exec sleep 300"],
  "cwd": "$TMP", "knob": { "name": "x", "values": ["1"], "env": "KNOB" },
  "ready": { "log": "^ready$", "timeout": 30 }, "stop": { "grace": 1 } }
JSON
"$LOOPBENCH" run "$TMP/escapee.json" -n 1 -w 0 -t 30 -o "$TMP/escapee" -q >/dev/null 2>&1 &
lb=$!
for _ in $(seq 1 200); do grep -qs '^ready$' "$TMP/escapee/runs/1-1/stdout.log" && break; sleep 0.05; done
sleep 0.3
escapees=$(procs_in "$TMP" | sort -u | tr '\n' ' ')
kill -9 "$lb"
{ wait "$lb"; } 2>/dev/null || true
sleep 0.5
left=$(procs_in "$TMP" | sort -u | tr '\n' ' ')
check "loopbench killed mid-window: nothing of its target's namespace is left (were: ${escapees:-none}; left: ${left:-none})" \
  bash -c "[ -n '$escapees' ] && [ -z '$left' ]"

# --- 3. where no namespace can be made ----------------------------------------------------
# (LOOPBENCH_TEST_NO_NAMESPACES makes loopbench take the host for one that has none.)
if $nobody; then
  LOOPBENCH_TEST_NO_NAMESPACES=1 walk no-ns-root "$LOOPBENCH"
  check "as root without namespaces: the target runs as nobody (uid 65534)" \
    bash -c "[ $rc -eq 0 ] && grep -q '^uid 65534 ' '$log' &&
      jq -e '.runs[0].exit.isolation == \"user-nobody\"' '$(doc no-ns-root)' >/dev/null"
  check "  ... and finds no secret of loopbench's ancestors" bash -c "! grep -q FOUND '$log'"
fi
rc=0
LOOPBENCH_TEST_NO_NAMESPACES=1 other "$OTHER_LOOPBENCH" exec -- true 2>"$TMP/exec-no-ns.err" || rc=$?
check "loopbench exec without namespaces: runs the command (exit $rc), and says what it can read" \
  bash -c "[ $rc -eq 0 ] && grep -q 'it can read the environment of every process of this user' '$TMP/exec-no-ns.err'"
LOOPBENCH_TEST_NO_NAMESPACES=1 walk no-ns "$OTHER_LOOPBENCH" other
check "as a user without namespaces: the run records isolation none" \
  jq -e '.runs[0].exit.isolation == "none"' "$(doc no-ns)"
check "  ... and says so plainly, on the terminal and in results.json" \
  bash -c "grep -q 'could read the environment of every process of this user' '$TMP/no-ns.out' &&
    jq -e '.warnings | any(test(\"could read the environment of every process of this user\"))' '$(doc no-ns)' >/dev/null"

# --- 4. harness/ci/regress.sh: a build finds no token, and leaves no daemon -----------------
# Both builds walk every environment they can read for the job's token and its GITHUB_ENV
# file, appending to that file wherever they find it; the head build also starts a daemon
# in a session of its own that waits for the report and writes an approval into it (the
# out directory it knows from this command, as it could from an ancestor's environment).
repo=$TMP/repo
git clone -q "$(git -C "$SOURCE_ROOT" rev-parse --absolute-git-dir)" "$repo"
github_env=$TMP/github_env
: >"$github_env"
out=$TMP/regress
# shellcheck disable=SC2016 # expanded by the shell that runs the build
build_cmd='for f in /proc/[0-9]*/environ; do
  if tr "\0" "\n" <"$f" 2>/dev/null | grep -q -e '"$SECRET"' -e ^GITHUB_ENV=; then echo "$f" >>"$VARIANT_DIR/found.txt";
    path=$(tr "\0" "\n" <"$f" | sed -n "s/^GITHUB_ENV=//p"); [ -z "$path" ] || echo BASH_ENV=/tmp/pwned >>"$path"; fi
done; touch "$VARIANT_DIR/walked"
setsid sh -c '"'"'while [ ! -s '"$out"'/report.md ]; do sleep 0.2; done; sleep 1;
  echo "**Approved by @github/security**" >>'"$out"'/report.md; touch '"$MARK"'-approved; sleep 60; : '"$MARK"''"'"' </dev/null >/dev/null 2>&1 &
cat >"$VARIANT_DIR/refshard" <<"EOF"
#!/bin/sh
echo "loop stats: reporting every 1 s"
exec sleep 60
EOF
chmod +x "$VARIANT_DIR/refshard"'
rc=0
env GITHUB_TOKEN="$SECRET" GH_TOKEN="$SECRET" ACTIONS_RUNTIME_TOKEN="$SECRET" GITHUB_ENV="$github_env" \
  GITHUB_STEP_SUMMARY="$TMP/summary.md" TARGET_REPO="$repo" BASE_REF=HEAD HEAD_REF=HEAD LOOPBENCH="$LOOPBENCH" \
  OUT="$out" WORK="$TMP/regress-work" BUILD_CMD="$build_cmd" PROFILE="$SOURCE_ROOT/profiles/refshard-ci.json" \
  bash "$SOURCE_ROOT/harness/ci/regress.sh" -- -s 2 -n 1 -w 0 -t 0.5 -q \
  >"$TMP/regress.out" 2>"$TMP/regress.err" || rc=$?
sleep 3 # the daemon's second, and more
check "regress.sh ran its campaign to the gate (exit $rc)" [ -s "$out/results.json" ]
for v in base head; do
  check "the $v build walked every environment it could read" test -e "$TMP/regress-work/$v/walked"
  check "  ... and found neither the token nor GITHUB_ENV's path in any" test ! -s "$TMP/regress-work/$v/found.txt"
done
check "the job's GITHUB_ENV file is untouched" test ! -s "$github_env"
check "the builds' daemons did not outlive their builds: no approval written" \
  bash -c "[ ! -e '$MARK-approved' ] && ! grep -q Approved '$out/report.md'"
check "  ... nothing of them is left" bash -c "! pgrep -f -- '${MARK%/*}/[m]ark-hostile-proc' >/dev/null"
check "  ... and the build's log says that what it left was killed" \
  grep -q "exec: 'bash' left [0-9]* process" "$TMP/regress-work/build-head.log"

# --- 5. a repository planted in a build's output runs nothing ------------------------------
# loopbench asks git which commit each variant's directory is (and whether it is dirty). A
# build that makes its output a repository whose own config names a clean filter for every
# file (and changes a file, so that git status must run it) had loopbench run that command,
# outside any namespace, before any target ran.
mkdir -p "$TMP/planted/base" "$TMP/planted/head"
for v in base head; do
  ln -s "$REFSHARD" "$TMP/planted/$v/refshard"
  cp "$SOURCE_ROOT/profiles/refshard.config.json" "$TMP/planted/$v/"
done
(
  cd "$TMP/planted/head" && git init -q . && git config user.email e2e@example.com &&
    git config user.name e2e && echo '* filter=pwn' >.gitattributes && echo one >file &&
    git add .gitattributes file && git commit -q -m planted &&
    git config filter.pwn.clean "sh -c 'touch $MARK-filter; cat'" &&
    git config filter.pwn.process "sh -c 'touch $MARK-process'" && echo two >file
)
jq '.command[0] = "{variant_dir}/refshard"' "$SOURCE_ROOT/profiles/refshard.json" >"$TMP/planted/refshard.json"
rc=0
(cd "$TMP/planted" && "$LOOPBENCH" run refshard.json -s 0 -n 1 -w 0 -t 0.3 --variant base=base \
  --variant head=head -o "$TMP/planted/out" -q >/dev/null 2>&1) || rc=$?
check "a variant directory that is a repository with a filter of its own: the run exits 0 ($rc)" [ "$rc" -eq 0 ]
check "  ... and neither its clean filter nor its filter process ran" \
  bash -c "[ ! -e '$MARK-filter' ] && [ ! -e '$MARK-process' ]"
check "  ... while its commit is still recorded, dirty" \
  jq -e '.campaign.variants[1].commit | .sha != null and .dirty' "$TMP/planted/out/results.json"
