#!/usr/bin/env bash
# Hostile pull request, publish (docs/reliability.md): where the token may be sent, and
# whose comment loopbench edits. An --api-url of http:// to a host that is not this
# machine's loopback is refused before any connection; a comment carrying loopbench's
# marker that someone else wrote (a pull request's author can write one) is left alone
# and a new one created; the token's own user's is updated, and so is GitHub Actions'
# bot's when the token is an App's (GET /user answers 403). Whatever a report carries
# (a daemon left by a build may have written into it), the comment and the webhook post
# @mentions and raw HTML as text; a long report is shortened in one pass, or refused at
# once when it cannot fit; the token never goes to a proxy. The GitHub stub is
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

# listen ADDR PORTFILE LOG: a listener on ADDR, its port written to PORTFILE, that appends
# the head of every request it gets to LOG and answers 502; LISTENER its pid.
listen() {
  "$PYTHON" - "$@" <<'PY' &
import os, socket, sys
s = socket.socket()
s.bind((sys.argv[1], 0))
s.listen(16)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.replace(sys.argv[2] + ".tmp", sys.argv[2])
while True:
    c, _ = s.accept()
    c.settimeout(5)
    head = b""
    try:
        while b"\r\n\r\n" not in head and len(head) < 65536:
            chunk = c.recv(4096)
            if not chunk:
                break
            head += chunk
    except OSError:
        pass
    with open(sys.argv[3], "ab") as f:
        f.write(head + b"\n---\n")
    try:
        c.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    except OSError:
        pass
    c.close()
PY
  LISTENER=$!
  PIDS+=("$LISTENER")
  for _ in $(seq 100); do [ -s "$2" ] && break; sleep 0.05; done
}

# --- 1. http:// to a host that is not the loopback: refused, nothing connects ------------
# A listener on this machine's first address that is not a loopback one records every
# connection it accepts.
addr=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+(\.[0-9]+){3}$' | grep -v '^127\.' | head -n 1 || true)
if [ -z "$addr" ]; then
  echo "skip: section 1's listener: this host has no IPv4 address but the loopback"
else
  listen "$addr" "$TMP/listen.port" "$TMP/connections"
  publish plain "$REPORT" --github o/r#7 --api-url "http://$addr:$(cat "$TMP/listen.port")"
  check "--api-url http:// to $addr: refused (exit 2)" [ "$RC" -eq 2 ]
  check "  ... saying the token would go in clear text" \
    grep -q "would send the token in clear text: expected https://, or http:// to a loopback" "$TMP/plain.err"
  check "  ... without a single connection" [ ! -s "$TMP/connections" ]
  kill "$LISTENER"
  wait "$LISTENER" 2>/dev/null || true
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

# --- 5. what a report carries: @mentions and raw HTML are posted as text -------------------
# A daemon a build left behind appended to report.md before it was published; the code
# fence below is posted as it is written (GitHub mentions no one in code).
cat >"$TMP/stained.md" <<'MD'
# refshard: idle wait 0 vs 2

| setting | CPU |
|---|---|
| 0 @octocat | <b>1</b> |

**Approved by @github/security** and @dependabot, cc &#64;mallory &commat;eve \@trudy
<img src=https://evil.example/pixel.png> <!-- loopbench-report -->
<details><summary>x</summary>hidden</details> a \<literal\> &amp; more

```
code @kept <as-is> &#64;
```
MD
stub stained '[{"method": "GET", "body": []},
  {"method": "POST", "path": "'$COMMENTS'", "status": 201, "body": {"id": 9, "html_url": "https://github.com/o/r/pull/7#issuecomment-9"}}]'
publish stained "$TMP/stained.md" --github o/r#7 --api-url "$API"
jq -j 'select(.method == "POST") | .body | fromjson | .body' "$LOG" >"$TMP/stained.posted"
unstub
stub hook '[{"method": "POST", "status": 200, "body": {}}]'
publish hook "$TMP/stained.md" --webhook "$API/hook/secret"
jq -j 'select(.method == "POST") | .body | fromjson | .report' "$LOG" >"$TMP/hook.posted"
unstub
for what in comment webhook; do
  posted=$TMP/stained.posted
  [ "$what" = comment ] || posted=$TMP/hook.posted
  # outside code: the lines before the code block's fence
  sed '/^```$/,$d' "$posted" >"$posted.prose"
  check "$what: posted (the stub got it)" test -s "$posted"
  check "$what: no @mention outside code (an @ then a letter or digit)" \
    bash -c "! grep -q -E '@[A-Za-z0-9]' '$posted.prose'"
  check "$what: no raw HTML outside code (<img, <b>, <details>, an HTML comment)" \
    bash -c "! grep -q -E '<(img|b|details|summary|!--)' '$posted.prose'"
  check "$what: no entity that renders an @ (&#64;, &commat;)" \
    bash -c "! grep -q -E '&(#64|commat);' '$posted.prose'"
  check "$what: the names still read as written (octocat, <img ...> as text)" \
    bash -c "grep -q -F 'octocat' '$posted' && grep -q -F '&lt;img src=https://evil.example/pixel.png>' '$posted'"
  check "$what: an escaped \\< is left as it is (it shows a <)" grep -q -F 'a \<literal\>' "$posted"
  check "$what: the code block is posted as written" grep -q -x -F 'code @kept <as-is> &#64;' "$posted"
done
check "the comment's only marker is loopbench's own, its last line" \
  bash -c "[ \"\$(grep -c -F '<!-- loopbench-report -->' '$TMP/stained.posted')\" = 1 ] &&
    [ \"\$(tail -n 1 '$TMP/stained.posted')\" = '<!-- loopbench-report -->' ]"

# --- 6. shortening a long report takes one pass; one that cannot fit is refused at once ----
# 1,000 tables of 150 rows (2.3 MB): shortened, the headline kept. Then 120 and 240 KB of
# tiny tables, whose lines saying a table was left out are longer than the tables: they
# cannot fit, which is said at once (the old search dropped one table a pass and counted
# the whole comment again: 80 s, and more than 300 s).
python3 - "$TMP/tables.md" <<'PY'
import sys
parts = ["# many tables\n\nheadline\n\n"]
for i in range(1000):
    parts.append("| run | cpu |\n|---|---|\n" + "".join("| %d | %d.0 |\n" % (i, r) for r in range(150)) + "\n")
open(sys.argv[1], "w").write("".join(parts))
PY
RC=0
GITHUB_TOKEN=$TOKEN timeout 30 "$LOOPBENCH" publish "$TMP/tables.md" --github o/r#7 --dry-run \
  >"$TMP/tables.out" 2>"$TMP/tables.err" || RC=$?
check "2.3 MB of tables: shortened to fit within 30 s (exit $RC)" \
  bash -c "[ $RC -eq 0 ] && grep -q '998 of its tables and code blocks are left out' '$TMP/tables.err'"
for kb in 120 240; do
  python3 -c 'import sys; open(sys.argv[1], "w").write("# tiny\n\n" + "| run | cpu |\n|---|---|\n| 1 | 1 |\n\n" * (int(sys.argv[2]) * 1024 // 35))' \
    "$TMP/tiny-$kb.md" "$kb"
  RC=0
  GITHUB_TOKEN=$TOKEN timeout 30 "$LOOPBENCH" publish "$TMP/tiny-$kb.md" --github o/r#7 --dry-run \
    >"$TMP/tiny.out" 2>"$TMP/tiny.err" || RC=$?
  check "$kb KB of tiny tables: refused within 30 s (exit $RC), as it cannot fit" \
    bash -c "[ $RC -eq 2 ] && grep -q 'even without its tables and code blocks' '$TMP/tiny.err'"
done
python3 -c 'import sys; open(sys.argv[1], "w").write("# prose\n\n" + "a line of prose that no cut removes\n" * 8000)' \
  "$TMP/prose.md"
RC=0
GITHUB_TOKEN=$TOKEN timeout 30 "$LOOPBENCH" publish "$TMP/prose.md" --github o/r#7 --dry-run \
  >"$TMP/prose.out" 2>"$TMP/prose.err" || RC=$?
check "a report that cannot fit, even without its tables: refused (exit 2), saying so" \
  bash -c "[ $RC -eq 2 ] && grep -q 'even without its tables and code blocks' '$TMP/prose.err'"
mkfifo "$TMP/fifo.md"
RC=0
GITHUB_TOKEN=$TOKEN timeout 30 "$LOOPBENCH" publish "$TMP/fifo.md" --github o/r#7 --dry-run \
  >"$TMP/fifo.out" 2>"$TMP/fifo.err" || RC=$?
check "a report that is a FIFO: refused at once (exit 2), nothing waits" \
  bash -c "[ $RC -eq 2 ] && grep -q 'not a regular file' '$TMP/fifo.err'"

# --- 7. no token to a proxy ---------------------------------------------------------------
# A listener on the loopback stands in for a proxy: the token must never be in what it gets.
listen 127.0.0.1 "$TMP/proxy.port" "$TMP/proxy.log"
PROXY=http://127.0.0.1:$(cat "$TMP/proxy.port")
: >"$TMP/proxy.log"
stub direct '[{"method": "GET", "body": []},
  {"method": "POST", "status": 201, "body": {"id": 9, "html_url": "https://github.com/o/r/pull/7#issuecomment-9"}}]'
RC=0
http_proxy=$PROXY HTTP_PROXY=$PROXY all_proxy=$PROXY GITHUB_TOKEN=$TOKEN \
  "$LOOPBENCH" publish "$REPORT" --github o/r#7 --api-url "$API" >"$TMP/direct.out" 2>"$TMP/direct.err" || RC=$?
check "http:// to the loopback with http_proxy set: published (exit $RC), straight to the server" \
  bash -c "[ $RC -eq 0 ] && grep -q 'Bearer $TOKEN' '$LOG'"
check "  ... the proxy got no request, and never the token" \
  bash -c "! grep -q -a -i 'authorization\\|$TOKEN' '$TMP/proxy.log' && [ ! -s '$TMP/proxy.log' ]"
unstub
: >"$TMP/proxy.log"
RC=0
https_proxy=$PROXY HTTPS_PROXY=$PROXY all_proxy=$PROXY GITHUB_TOKEN=$TOKEN LOOPBENCH_HTTP_BACKOFF_MS=0 \
  "$LOOPBENCH" publish "$REPORT" --github o/r#7 --api-url https://127.0.0.1:9/api \
  >"$TMP/tunnel.out" 2>"$TMP/tunnel.err" || RC=$?
check "https:// through a proxy: the proxy is only asked for a tunnel (CONNECT), without the token" \
  bash -c "grep -q -a '^CONNECT 127.0.0.1:9' '$TMP/proxy.log' && ! grep -q -a -i 'authorization\\|$TOKEN' '$TMP/proxy.log' &&
    ! grep -q -a -E '^(GET|POST|PATCH) ' '$TMP/proxy.log'"
kill "$LISTENER"
wait "$LISTENER" 2>/dev/null || true
