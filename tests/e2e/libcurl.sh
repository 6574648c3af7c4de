#!/usr/bin/env bash
# libcurl is loaded only when HTTP is used (docs/network.md): loopbench is not linked with
# it, a campaign without HTTP never loads it, one ready by HTTP does, and where it cannot
# be loaded the command says so in one line.
source "$(dirname "$0")/lib.sh"

check "loopbench is not linked with libcurl" bash -c "! ldd '$BUILD_ROOT/loopbench' | grep -q libcurl"

# loaded_during PROFILE NAME: run a one-run campaign of PROFILE and print the libcurl files
# the dynamic loader loaded into loopbench (its LD_DEBUG=files log, loopbench's own file:
# loopbench is not dumpable, so its /proc/PID/maps is root's alone to read).
loaded_during() {
  LD_DEBUG=files LD_DEBUG_OUTPUT="$TMP/$2.ld" "$LOOPBENCH" run "$1" -n 1 -w 0 -t 1 \
    -o "$TMP/$2" 2>"$TMP/$2.err" >/dev/null &
  local lb=$!
  PIDS+=("$lb")
  wait "$lb"
  [ -s "$TMP/$2.ld.$lb" ] || { echo "no loader log for loopbench (pid $lb)"; return; }
  grep -o 'file=[^ ]*libcurl[^ ]*' "$TMP/$2.ld.$lb" | sort -u | tr '\n' ' ' || true
}

web=$(free_port)
mkdir -p "$TMP/www" && echo ok >"$TMP/www/health"
cat >"$TMP/plain.json" <<JSON
{ "name": "plain", "command": ["python3", "-m", "http.server", "$web", "--bind", "127.0.0.1",
  "--directory", "$TMP/www"],
  "knob": { "name": "unused", "values": ["a"], "env": "UNUSED" },
  "ready": { "tcp": "127.0.0.1:$web", "timeout": 10 }, "stop": { "grace": 2 } }
JSON
jq --arg url "http://127.0.0.1:$web/health" '.name = "web" | .ready = {http: $url, timeout: 10}' \
  "$TMP/plain.json" >"$TMP/web.json"

plain_loaded=$(loaded_during "$TMP/plain.json" plain)
check "a campaign without HTTP never loads libcurl" bash -c "[ -z '$plain_loaded' ]"
web_loaded=$(loaded_during "$TMP/web.json" web)
check "a campaign ready by HTTP loads it ($web_loaded)" bash -c "[[ '$web_loaded' == file=*libcurl* ]]"
check "  ... and completes" jq -e '.runs[0].status == "ok"' "$TMP/web/results.json"

# A libcurl that cannot be loaded: its file hidden behind an empty one in a private mount
# namespace (root, or unprivileged user namespaces).
lib=$(PATH=$PATH:/sbin:/usr/sbin ldconfig -p | awk '/libcurl\.so\.4 / && !found { print $NF; found = 1 }')
without_libcurl() {
  unshare -rm sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$(readlink -f "$lib")" "$@"
}
if [ -n "$lib" ] && without_libcurl true 2>/dev/null; then
  rc=0
  without_libcurl "$LOOPBENCH" validate "$TMP/web.json" >/dev/null 2>"$TMP/missing.err" || rc=$?
  check "without libcurl a profile ready by HTTP is refused (exit 2)" [ "$rc" -eq 2 ]
  check "  ... in one line naming the library: $(cat "$TMP/missing.err")" bash -c "
    [ \$(wc -l <'$TMP/missing.err') -eq 1 ] &&
    grep -q 'ready.http: HTTP needs libcurl, which cannot be loaded: .*libcurl.so.4' '$TMP/missing.err'"
  rc=0
  without_libcurl "$LOOPBENCH" validate "$TMP/plain.json" >/dev/null || rc=$?
  check "  ... while a profile without HTTP still validates" [ "$rc" -eq 0 ]
else
  echo "skip: no private mount namespace here to hide libcurl in"
fi
check "no process left" no_process_from "$TMP"

[ "$fails" -eq 0 ]
