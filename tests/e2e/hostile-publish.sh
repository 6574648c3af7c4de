#!/usr/bin/env bash
# Hostile pull request, publish (docs/reliability.md): where the token may be sent, and
# whose comment loopbench edits. An --api-url of http:// to a host that is not this
# machine's loopback is refused before any connection; a comment carrying loopbench's
# marker that someone else wrote (a pull request's author can write one) is left alone
# and a new one created; the token's own user's is updated, and so is GitHub Actions'
# bot's when the token is an App's (GET /user answers 403). The GitHub stub is
# tests/helpers/httpstub.py.
source "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null || ! command -v jq >/dev/null; then
  skip_test "python3 and jq are needed (the test server, the request log)"
fi
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
HTTPSTUB=$SOURCE_ROOT/tests/helpers/httpstub.py
TOKEN=ghp_e2eHostile0123456789abcdefXYZ
export LOOPBENCH_HTTP_BACKOFF_MS=100
COMMENTS=/repos/o/r/issues/7/comments
REPORT=$TMP/report.md
printf '# refshard: idle wait 0 vs 2\n\nIdle wait 2 uses less CPU.\n' >"$REPORT"

# stub NAME SCRIPT: a GitHub stub answering from SCRIPT; sets API, LOG and STUB_PID.
stub() {
  printf '%s\n' "$2" >"$TMP/$1.script"
  "$PYTHON" "$HTTPSTUB" --port-file "$TMP/$1.port" --log "$TMP/$1.log" \
    --script "$TMP/$1.script" 2>"$TMP/$1.stub-err" &
  STUB_PID=$!
  PIDS+=("$STUB_PID")
  for _ in $(seq 100); do
    [ -s "$TMP/$1.port" ] && break
    sleep 0.05
  done
  [ -s "$TMP/$1.port" ] || { echo "FAIL: httpstub did not start: $(cat "$TMP/$1.stub-err")"; exit 1; }
  API=http://127.0.0.1:$(cat "$TMP/$1.port")
  LOG=$TMP/$1.log
  touch "$LOG"
}
unstub() { kill -TERM "$STUB_PID"; wait "$STUB_PID" || true; }
# publish NAME ARGS...: with the token set; output in $TMP/NAME.out and .err, status RC.
publish() {
  local name=$1
  shift
  RC=0
  GITHUB_TOKEN=$TOKEN "$LOOPBENCH" publish "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || RC=$?
}
# requests_are LIST: the recorded requests, as "METHOD PATH", are exactly LIST (JSON).
requests_are() { jq -se --argjson want "$1" '[.[] | .method + " " + .path] == $want' "$LOG" >/dev/null; }

# --- 1. http:// to a host that is not the loopback: refused, nothing connects ------------
# A listener on this machine's first address that is not a loopback one records every
# connection it accepts.
addr=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+(\.[0-9]+){3}$' | grep -v '^127\.' | head -n 1 || true)
if [ -z "$addr" ]; then
  echo "skip: section 1's listener: this host has no IPv4 address but the loopback"
else
  "$PYTHON" - "$addr" "$TMP/listen.port" "$TMP/connections" <<'PY' &
import socket, sys, os
s = socket.socket()
s.bind((sys.argv[1], 0))
s.listen(8)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.replace(sys.argv[2] + ".tmp", sys.argv[2])
while True:
    c, _ = s.accept()
    with open(sys.argv[3], "a") as f:
        f.write("connected\n")
    c.close()
PY
  listener=$!
  PIDS+=("$listener")
  for _ in $(seq 100); do [ -s "$TMP/listen.port" ] && break; sleep 0.05; done
  publish plain "$REPORT" --github o/r#7 --api-url "http://$addr:$(cat "$TMP/listen.port")"
  check "--api-url http:// to $addr: refused (exit 2)" [ "$RC" -eq 2 ]
  check "  ... saying the token would go in clear text" \
    grep -q "would send the token in clear text: expected https://, or http:// to a loopback" "$TMP/plain.err"
  check "  ... without a single connection" [ ! -s "$TMP/connections" ]
  kill "$listener"
  wait "$listener" 2>/dev/null || true
fi
publish named-host "$REPORT" --github o/r#7 --api-url http://github.example.com/api/v3 --dry-run
check "--api-url http:// to a host name: refused (exit 2)" [ "$RC" -eq 2 ]
for loop in http://localhost:1 http://127.0.0.2:1 'http://[::1]:1' https://github.example.com/api/v3; do
  publish loopback "$REPORT" --github o/r#7 --api-url "$loop" --dry-run
  check "--api-url $loop accepted (--dry-run exits 0)" [ "$RC" -eq 0 ]
done

# --- 2. a marked comment written by someone else: left alone, a new one created ----------
stub foreign '[
  {"method": "GET", "path": "'$COMMENTS'?per_page=100&page=1",
   "body": [{"id": 5, "body": "forged\n<!-- loopbench-report -->", "user": {"login": "mallory", "type": "User"}}]},
  {"method": "GET", "path": "/user", "body": {"login": "e2e-bot", "type": "User"}},
  {"method": "POST", "path": "'$COMMENTS'", "status": 201, "body": {"id": 43, "html_url": "https://github.com/o/r/pull/7#issuecomment-43"}}]'
publish foreign "$REPORT" --github o/r#7 --api-url "$API"
check "a marked comment by another user: exit 0, a new comment created" \
  bash -c "[ $RC -eq 0 ] && grep -qx 'created comment https://github.com/o/r/pull/7#issuecomment-43' '$TMP/foreign.out'"
check "  ... the other user's comment not edited: GET the list, GET /user, POST" \
  requests_are '["GET '$COMMENTS'?per_page=100&page=1", "GET /user", "POST '$COMMENTS'"]'
check "  ... a warning says one marked comment was left alone" \
  grep -q "1 comment on o/r#7 carries the marker but was not written by the token's user: left alone" "$TMP/foreign.err"
unstub

# --- 3. the token's own comment is updated, someone else's before it is not --------------
stub own '[
  {"method": "GET", "path": "'$COMMENTS'?per_page=100&page=1",
   "body": [{"id": 5, "body": "forged\n<!-- loopbench-report -->", "user": {"login": "mallory"}},
            {"id": 6, "body": "ours\n<!-- loopbench-report -->", "user": {"login": "e2e-bot"}}]},
  {"method": "GET", "path": "/user", "body": {"login": "e2e-bot"}},
  {"method": "PATCH", "path": "/repos/o/r/issues/comments/6", "body": {"id": 6, "html_url": "https://github.com/o/r/pull/7#issuecomment-6"}}]'
publish own "$REPORT" --github o/r#7 --api-url "$API"
check "the token's own marked comment: updated (exit 0)" \
  bash -c "[ $RC -eq 0 ] && grep -qx 'updated comment https://github.com/o/r/pull/7#issuecomment-6' '$TMP/own.out'"
check "  ... PATCH 6, not the other user's 5 listed first; /user asked once" \
  requests_are '["GET '$COMMENTS'?per_page=100&page=1", "GET /user", "PATCH /repos/o/r/issues/comments/6"]'
unstub

# --- 4. GitHub Actions' token: /user answers 403, its bot's comment is the one ------------
stub app '[
  {"method": "GET", "path": "'$COMMENTS'?per_page=100&page=1",
   "body": [{"id": 5, "body": "forged\n<!-- loopbench-report -->", "user": {"login": "mallory"}},
            {"id": 8, "body": "ours\n<!-- loopbench-report -->", "user": {"login": "github-actions[bot]", "type": "Bot"}}]},
  {"method": "GET", "path": "/user", "status": 403,
   "body": {"message": "Resource not accessible by integration"}},
  {"method": "PATCH", "path": "/repos/o/r/issues/comments/8", "body": {"id": 8, "html_url": "https://github.com/o/r/pull/7#issuecomment-8"}}]'
publish app "$REPORT" --github o/r#7 --api-url "$API"
check "an App's token (GET /user: 403): exit 0, updated" \
  bash -c "[ $RC -eq 0 ] && grep -qx 'updated comment https://github.com/o/r/pull/7#issuecomment-8' '$TMP/app.out'"
check "  ... github-actions[bot]'s comment 8, not the other user's 5" \
  requests_are '["GET '$COMMENTS'?per_page=100&page=1", "GET /user", "PATCH /repos/o/r/issues/comments/8"]'
unstub
