#!/usr/bin/env bash
# loopbench publish end to end. A real HTTP server on 127.0.0.1 (tests/helpers/httpstub.py)
# stands in for the GitHub API and a webhook: it records every request and answers from
# a script, so the test checks what loopbench sends and how it takes each answer.
source "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null; then
  skip_test "python3 is not installed (the test server needs it)"
fi
# The interpreter itself: a version manager's shim would cost half a second a start.
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
# The stub is local: no proxy in between.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
HTTPSTUB=$SOURCE_ROOT/tests/helpers/httpstub.py
TOKEN=ghp_e2eTopSecret0123456789abcdefXYZ
VERSION=$("$LOOPBENCH" --version | awk '{ print $2 }')
# Retries after 5xx and network failures wait 0.1, 0.2, 0.4 s instead of 1, 2, 4 s.
export LOOPBENCH_HTTP_BACKOFF_MS=100
COMMENTS=/repos/o/r/issues/7/comments

REPORT=$TMP/report.md
printf '# refshard: idle wait 0 vs 2\n\nIdle wait 2 uses **4.1x less CPU** than 0.\n\n| setting | CPU %% |\n|---|---|\n| 0 | 98.1 |\n| 2 | 24.0 |\n' >"$REPORT"

# stub NAME SCRIPT: start a server answering from SCRIPT (JSON, see httpstub.py); sets
# API (its root URL), PORT, LOG (its requests, one JSON line each) and STUB_PID.
stub() {
  local name=$1
  printf '%s\n' "$2" >"$TMP/$name.script"
  "$PYTHON" "$HTTPSTUB" --port-file "$TMP/$name.port" --log "$TMP/$name.log" \
    --script "$TMP/$name.script" 2>"$TMP/$name.stub-err" &
  STUB_PID=$!
  PIDS+=("$STUB_PID")
  for _ in $(seq 100); do
    [ -s "$TMP/$name.port" ] && break
    sleep 0.05
  done
  if [ ! -s "$TMP/$name.port" ]; then
    echo "FAIL: httpstub did not start: $(cat "$TMP/$name.stub-err")"
    exit 1
  fi
  PORT=$(cat "$TMP/$name.port")
  API=http://127.0.0.1:$PORT
  LOG=$TMP/$name.log
  touch "$LOG"
}
unstub() { kill -TERM "$STUB_PID"; wait "$STUB_PID" || true; }

# publish NAME ARGS...: loopbench publish with the token set; its output in
# $TMP/NAME.out and .err, its status in RC and its duration (seconds) in SECS.
publish() {
  local name=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  RC=0
  GITHUB_TOKEN=$TOKEN "$LOOPBENCH" publish "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || RC=$?
  t1=$(date +%s.%N)
  SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
}
requests() { wc -l <"$LOG"; }
# on_log FILTER [JQ OPTIONS...]: the recorded requests, as an array, satisfy FILTER.
on_log() {
  local filter=$1
  shift
  jq -se "$@" "$filter" "$LOG" >/dev/null
}

# --- 1. first publish: no marked comment, so GET the comments then POST one ----------------
stub create '[
  {"method": "GET", "path": "'$COMMENTS'?per_page=100&page=1", "body": [{"id": 1, "body": "LGTM"}]},
  {"method": "POST", "path": "'$COMMENTS'", "status": 201,
   "body": {"id": 42, "html_url": "https://github.com/o/r/pull/7#issuecomment-42"}}]'
publish create "$REPORT" --github o/r#7 --api-url "$API"
check "first publish exits 0" [ "$RC" -eq 0 ]
check "  ... prints the new comment's URL" \
  grep -qx 'created comment https://github.com/o/r/pull/7#issuecomment-42' "$TMP/create.out"
check "  ... two requests: GET then POST" [ "$(requests)" -eq 2 ]
check "  ... GET the first page of 100 comments" \
  on_log '.[0].method == "GET" and .[0].path == "'$COMMENTS'?per_page=100&page=1"'
check "  ... POST to the pull request's comments" \
  on_log '.[1].method == "POST" and .[1].path == "'$COMMENTS'"'
check "  ... Authorization: Bearer and the token, on both" \
  on_log 'all(.headers.authorization == "Bearer '$TOKEN'")'
check "  ... Accept: application/vnd.github+json and the API version" \
  on_log 'all(.headers.accept == "application/vnd.github+json"
    and .headers["x-github-api-version"] == "2022-11-28")'
check "  ... User-Agent: loopbench/$VERSION" on_log 'all(.headers["user-agent"] == "loopbench/'$VERSION'")'
check "  ... the POST is JSON" on_log '.[1].headers["content-type"] == "application/json"'
check "  ... its body is the report, then the marker on a line of its own" \
  on_log '.[1].body | fromjson | .body == $report + "\n<!-- loopbench-report -->\n"' \
  --rawfile report "$REPORT"
unstub

# --- 2. the marked comment is on page 2 (page 1 is full, no Link header): PATCH it ---------
# Page 1 also holds a reply quoting the marker: quoted, it is not loopbench's comment.
page1=$(jq -nc '[range(100) | {id: (. + 1), body: "comment \(.)"}]
  | .[4].body = "> <!-- loopbench-report -->\n> quoted"')
stub update "$(jq -nc --argjson page1 "$page1" --arg c "$COMMENTS" '[
  {method: "GET", path: ($c + "?per_page=100&page=1"), body: $page1},
  {method: "GET", path: ($c + "?per_page=100&page=2"),
   body: [{id: 101, body: "ok"}, {id: 4242, body: "old\n\n<!-- loopbench-report -->\n",
     user: {login: "E2E-Bot"}}]},
  {method: "GET", path: "/user", body: {login: "e2e-bot"}},
  {method: "PATCH", path: "/repos/o/r/issues/comments/4242",
   body: {id: 4242, html_url: "https://github.com/o/r/pull/7#issuecomment-4242"}}]')"
publish update "$REPORT" --github o/r#7 --api-url "$API/"
check "second publish exits 0" [ "$RC" -eq 0 ]
check "  ... prints the updated comment's URL" \
  grep -qx 'updated comment https://github.com/o/r/pull/7#issuecomment-4242' "$TMP/update.out"
check "  ... reads page 2 after a full page 1" \
  on_log '[.[].path] == ["'$COMMENTS'?per_page=100&page=1", "'$COMMENTS'?per_page=100&page=2",
    "/user", "/repos/o/r/issues/comments/4242"]'
check "  ... asks whose the token is once, at the marked comment (logins match in any case)" \
  on_log '[.[] | select(.path == "/user")] | length == 1'
check "  ... PATCHes the marked comment, not the quoting one" \
  on_log '.[3].method == "PATCH" and .[3].headers["content-type"] == "application/json"'
check "  ... with the new report" \
  on_log '.[3].body | fromjson | .body | startswith($report)' --rawfile report "$REPORT"
unstub

# --- 3. pages told by Link headers, and named markers ----------------------------------------
# Page 1 holds the "perf" report and says a page 2 follows; page 2 holds the default one.
link_next='<'"http://elsewhere.invalid$COMMENTS"'?per_page=100&page=2>; rel="next"'
script=$(jq -nc --arg c "$COMMENTS" --arg next "$link_next" '[
  {method: "GET", path: ($c + "?per_page=100&page=1"), headers: {Link: $next},
   body: [{id: 10, body: "perf\n<!-- loopbench-report:perf -->", user: {login: "e2e-bot"}}]},
  {method: "GET", path: ($c + "?per_page=100&page=2"), headers: {Link: "<x>; rel=\"prev\""},
   body: [{id: 20, body: "main\n<!-- loopbench-report -->", user: {login: "e2e-bot"}}]},
  {method: "GET", path: "/user", body: {login: "e2e-bot"}},
  {method: "PATCH", body: {html_url: "https://github.com/o/r/pull/7#c"}}]')
stub linked "$script"
publish linked "$REPORT" --github o/r#7 --api-url "$API"
check "Link rel=next: page 2 is read, the default marker found there" \
  on_log '[.[] | .method + " " + .path] == ["GET '$COMMENTS'?per_page=100&page=1",
    "GET '$COMMENTS'?per_page=100&page=2", "GET /user", "PATCH /repos/o/r/issues/comments/20"]'
check "  ... the next page is asked of the API root given, not of the Link's host" \
  on_log 'all(.headers.host == "127.0.0.1:'$PORT'")'
check "  ... exit 0" [ "$RC" -eq 0 ]
unstub
stub named "$script"
publish named "$REPORT" --github o/r#7 --api-url "$API" --marker perf
check "--marker perf: its own comment, found on page 1, is PATCHed" \
  on_log '[.[] | .method + " " + .path] == ["GET '$COMMENTS'?per_page=100&page=1",
    "GET /user", "PATCH /repos/o/r/issues/comments/10"]'
check "  ... its body ends with the named marker" \
  on_log '.[2].body | fromjson | .body | endswith("\n<!-- loopbench-report:perf -->\n")'
unstub

# --- 4. rate limits and server errors are retried -------------------------------------------
stub limited '[
  {"method": "GET", "status": 429, "headers": {"Retry-After": "1"},
   "body": {"message": "API rate limit exceeded"}},
  {"method": "GET", "body": []},
  {"method": "POST", "status": 201, "body": {"html_url": "https://github.com/o/r/pull/7#new"}}]'
publish limited "$REPORT" --github o/r#7 --api-url "$API"
check "429 with Retry-After: 1, then 200: exit 0" [ "$RC" -eq 0 ]
check "  ... the GET was sent twice" on_log '[.[].method] == ["GET", "GET", "POST"]'
check "  ... at least 1 s apart (took $SECS s)" gt "$SECS" 1
check "  ... saying why on stderr" grep -q 'HTTP 429 (rate-limited); retrying in 1 s' "$TMP/limited.err"
unstub

stub flaky '[
  {"method": "GET", "body": []},
  {"method": "POST", "status": 502, "times": 2, "body": "<html>Bad gateway</html>"},
  {"method": "POST", "status": 201, "body": {"html_url": "https://github.com/o/r/pull/7#ok"}}]'
publish flaky "$REPORT" --github o/r#7 --api-url "$API"
check "502, 502, then 201: exit 0" [ "$RC" -eq 0 ]
check "  ... three POSTs" on_log '[.[].method] == ["GET", "POST", "POST", "POST"]'
check "  ... after backing off 0.1 then 0.2 s (took $SECS s)" gt "$SECS" 0.3
check "  ... two retries told" [ "$(grep -c 'HTTP 502; retrying in' "$TMP/flaky.err")" -eq 2 ]
unstub

stub down '[{"method": "GET", "status": 503, "times": -1, "body": {"message": "down"}}]'
publish down "$REPORT" --github o/r#7 --api-url "$API"
check "503 every time: exit 1" [ "$RC" -eq 1 ]
check "  ... after 4 attempts" [ "$(requests)" -eq 4 ]
check "  ... saying so" grep -q 'HTTP 503: down, still after 4 attempts' "$TMP/down.err"
unstub

reset=$(($(date +%s) + 3600))
stub exhausted '[{"method": "GET", "status": 403, "body": {"message": "API rate limit exceeded"},
  "headers": {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "'$reset'"}}]'
publish exhausted "$REPORT" --github o/r#7 --api-url "$API"
check "403 with the hourly limit spent for an hour: exit 1" [ "$RC" -eq 1 ]
check "  ... at once, without waiting (took $SECS s)" lt "$SECS" 5
check "  ... naming the 60 s cap and when to try again" \
  grep -q 'longer than the 60 s loopbench waits at most: try again after' "$TMP/exhausted.err"
unstub

# --- 5. refusals: one clear line, never the token --------------------------------------------
stub refused '[
  {"status": 401, "body": {"message": "Bad credentials '$TOKEN'"}},
  {"status": 404, "body": {"message": "Not Found"}},
  {"status": 403, "body": {"message": "Resource not accessible by integration"}}]'
publish bad-token "$REPORT" --github o/r#7 --api-url "$API"
check "401: exit 1" [ "$RC" -eq 1 ]
check "  ... one line about the token" \
  bash -c "[ \$(wc -l <'$TMP/bad-token.err') -eq 1 ] && grep -q 'GitHub refused GITHUB_TOKEN (HTTP 401' '$TMP/bad-token.err'"
check "  ... without the token, even echoed by the server" \
  bash -c "! grep -qF '$TOKEN' '$TMP/bad-token.err' && grep -qF 'Bad credentials ***' '$TMP/bad-token.err'"
publish not-found "$REPORT" --github o/r#7 --api-url "$API"
check "404: exit 1" [ "$RC" -eq 1 ]
check "  ... naming o/r#7 and what to check" \
  grep -q 'no pull request o/r#7 (HTTP 404: Not Found).*check the owner, repository and number' \
  "$TMP/not-found.err"
publish forbidden "$REPORT" --github o/r#7 --api-url "$API"
check "403 (no rate limit): exit 1 at once, no retry" \
  bash -c "[ $RC -eq 1 ] && [ \$(wc -l <'$LOG') -eq 3 ]"
check "  ... naming the permission to check" grep -q 'pull-requests: write' "$TMP/forbidden.err"
unstub

# --- 6. webhook -------------------------------------------------------------------------------
stub webhook '[
  {"method": "POST", "path": "/hooks/s3cr3t-path", "status": 204},
  {"method": "POST", "path": "/hooks/s3cr3t-path", "status": 400, "body": {"message": "bad payload"}}]'
publish webhook "$REPORT" --webhook "$API/hooks/s3cr3t-path"
check "--webhook: exit 0" [ "$RC" -eq 0 ]
check "  ... says where, without the URL's path" \
  grep -qx "posted to webhook $API (HTTP 204)" "$TMP/webhook.out"
check "  ... one JSON POST, without Authorization" \
  on_log 'length == 1 and .[0].method == "POST" and .[0].headers["content-type"] == "application/json"
    and (.[0].headers | has("authorization") | not)'
check "  ... the payload: schema, version, title, marker and the report" \
  on_log '.[0].body | fromjson | . == {schema: "loopbench/publish/1", loopbench: "'$VERSION'",
    title: "refshard: idle wait 0 vs 2", marker: "<!-- loopbench-report -->", report: $report}' \
  --rawfile report "$REPORT"
publish webhook-400 "$REPORT" --webhook "$API/hooks/s3cr3t-path"
check "a webhook answering 400: exit 1 with its message" \
  bash -c "[ $RC -eq 1 ] && grep -q 'webhook $API answered HTTP 400: bad payload' '$TMP/webhook-400.err'"
check "  ... the webhook's path is never printed" \
  bash -c "! grep -q s3cr3t '$TMP/webhook.out' '$TMP/webhook.err' '$TMP/webhook-400.err'"

# --- 7. bad usage: exit 2, one line, nothing sent --------------------------------------------
before=$(requests)
expect_usage() { # expect_usage "what" "message" ARGS...  (runs with the token unless told)
  local what=$1 want=$2
  shift 2
  publish usage "$@"
  if [ "$RC" -eq 2 ] && grep -q -- "$want" "$TMP/usage.err" && [ ! -s "$TMP/usage.out" ] \
     && [ "$(grep -c '^loopbench: ' "$TMP/usage.err")" -eq 1 ]; then
    ok "$what -> exit 2: $(head -1 "$TMP/usage.err")"
  else
    fail "$what -> exit $RC, stderr: $(cat "$TMP/usage.err")"
  fi
  cat "$TMP/usage.err" >>"$TMP/usage-all.err" # kept for the token check at the end
}
expect_usage "no owner/repo separator" "expected OWNER/REPO#N" "$REPORT" --github or#7
expect_usage "no PR number" "expected OWNER/REPO#N" "$REPORT" --github o/r
expect_usage "empty PR number" "number '' should be" "$REPORT" --github o/r#
expect_usage "PR number not a number" "number 'x' should be" "$REPORT" --github o/r#x
expect_usage "PR number 0" "number '0' should be" "$REPORT" --github o/r#0
expect_usage "no owner" "the owner '' should be" "$REPORT" --github /r#7
expect_usage "a blank in the owner" "the owner 'o o' should be" "$REPORT" --github 'o o/r#7'
expect_usage "a slash in the repository" "the repository 'r/x' should be" "$REPORT" --github o/r/x#7
expect_usage "neither --github nor --webhook" "exactly one of" "$REPORT"
expect_usage "both --github and --webhook" "exactly one of" "$REPORT" --github o/r#7 --webhook "$API/h"
expect_usage "--api-url without --github" "--api-url goes with --github" "$REPORT" --webhook "$API/h" --api-url "$API"
expect_usage "--api-url not http" "--api-url 'ftp://x': expected an http" "$REPORT" --github o/r#7 --api-url ftp://x
expect_usage "--webhook not a URL" "--webhook 'nowhere': expected an http" "$REPORT" --webhook nowhere
expect_usage "a bad marker name" "marker 'a b': expected" "$REPORT" --github o/r#7 --marker 'a b'
expect_usage "no report" "expected one report file, got 0" --github o/r#7
expect_usage "two reports" "expected one report file, got 2" "$REPORT" "$REPORT" --github o/r#7
expect_usage "an unknown option" "unknown option '--frob'" "$REPORT" --frob
expect_usage "an unreadable report" "cannot read '$TMP/none.md'" "$TMP/none.md" --github o/r#7 --api-url "$API"
: >"$TMP/empty.md"
expect_usage "an empty report" "is empty" "$TMP/empty.md" --github o/r#7 --api-url "$API"
printf 'caf\xe9\n' >"$TMP/latin1.md"
expect_usage "a report that is not UTF-8" "not valid UTF-8 (byte 3)" "$TMP/latin1.md" --github o/r#7 --api-url "$API"
head -c 70000 /dev/zero | tr '\0' 'x' >"$TMP/long.md"
expect_usage "a report too long for a comment" "more than the 65536" "$TMP/long.md" --github o/r#7 --api-url "$API"
LOOPBENCH_HTTP_BACKOFF_MS=soon expect_usage "a bad LOOPBENCH_HTTP_BACKOFF_MS" \
  "LOOPBENCH_HTTP_BACKOFF_MS 'soon'" "$REPORT" --github o/r#7 --api-url "$API"
# Without the token, through env so that no GITHUB_TOKEN reaches loopbench at all.
RC=0
env -u GITHUB_TOKEN "$LOOPBENCH" publish "$REPORT" --github o/r#7 --api-url "$API" \
  >"$TMP/no-token.out" 2>"$TMP/no-token.err" || RC=$?
check "GITHUB_TOKEN unset: exit 2" [ "$RC" -eq 2 ]
check "  ... saying GITHUB_TOKEN is not set" grep -q '^loopbench: publish: GITHUB_TOKEN is not set' "$TMP/no-token.err"
RC=0
GITHUB_TOKEN=$'abc\ndef' "$LOOPBENCH" publish "$REPORT" --github o/r#7 --api-url "$API" \
  >"$TMP/nl-token.out" 2>"$TMP/nl-token.err" || RC=$?
check "a token holding a newline: exit 2, not shown" \
  bash -c "[ $RC -eq 2 ] && grep -q 'GITHUB_TOKEN holds a blank or control character' '$TMP/nl-token.err' && ! grep -q abc '$TMP/nl-token.err'"
check "nothing was sent for any of them" [ "$(requests)" -eq "$before" ]

# --- 8. --dry-run: the requests, nothing sent, no token needed ---------------------------------
RC=0
env -u GITHUB_TOKEN "$LOOPBENCH" publish "$REPORT" --github o/r#7 --api-url "$API" --dry-run \
  >"$TMP/dry.out" 2>"$TMP/dry.err" || RC=$?
check "--dry-run: exit 0 without a token" [ "$RC" -eq 0 ]
check "  ... shows the GET, the POST and the size" bash -c "
  grep -q '^GET $API$COMMENTS?per_page=100&page=1 ' '$TMP/dry.out' &&
  grep -q 'else POST $API$COMMENTS\$' '$TMP/dry.out' && grep -q '[0-9]* bytes of comment' '$TMP/dry.out'"
check "  ... and sends nothing" [ "$(requests)" -eq "$before" ]
publish dry-webhook "$REPORT" --webhook "$API/hooks/s3cr3t-path" --dry-run
check "--dry-run --webhook: the POST's origin and size" \
  bash -c "[ $RC -eq 0 ] && grep -q '^POST $API/... (path not shown): [0-9]* bytes of JSON' '$TMP/dry-webhook.out'"
t0=$(date +%s.%N)
unstub
check "the stub stops promptly on SIGTERM" lt "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" 2

# --- 9. nothing listening: retried, then one line naming the URL -------------------------------
publish refused-conn "$REPORT" --github o/r#7 --api-url "$API"
check "connection refused: exit 1" [ "$RC" -eq 1 ]
check "  ... naming the URL, after 4 attempts" \
  grep -q "GET $API$COMMENTS?per_page=100&page=1: .*(gave up after 4 attempts)" "$TMP/refused-conn.err"

# --- 10. a report too long for a comment: shortened, headline, verdicts and charts kept -------
# A 10-setting, 10-run campaign with round trips, made of a real one: a short refshard-rtt
# campaign's first run (its series and round trips included) repeated with the setting
# and the CPU changed. Its comment: the report, compare's verdicts, and a table of every
# run with all its figures, which takes it past GitHub's 65536 characters.
mkdir -p "$TMP/ref"
cp "$SOURCE_ROOT/profiles/refshard-rtt.json" "$SOURCE_ROOT/profiles/refshard-rtt.config.json" "$TMP/ref/"
cp "$REFSHARD" "$TMP/ref/refshard"
sed -i 's|{loopbench_dir}/refshard|./refshard|' "$TMP/ref/refshard-rtt.json"
"$LOOPBENCH" run "$TMP/ref/refshard-rtt.json" -s 0,2 -n 1 -w 0.5 -t 1 -o "$TMP/seed" -q >/dev/null
big=$TMP/big
mkdir -p "$big/runs"
jq --argjson settings '["0","1","2","3","4","5","6","8","12","16"]' '
  .runs[0] as $run
  | .campaign.settings = $settings | .profile.knob.values = $settings | .campaign.repeat = 10
  | .campaign.plan = [range(10) as $k | $settings[] | {setting: ., repeat: ($k + 1), dir: "runs/\(.)-\($k + 1)"}]
  | .runs = [.campaign.plan[] as $p | $run
      | .setting = $p.setting | .repeat = $p.repeat | .dir = $p.dir | .series = "\($p.dir)/series.csv"
      | .stdout_log = "\($p.dir)/stdout.log" | .stderr_log = "\($p.dir)/stderr.log"
      | .cpu_percent = (if $p.setting == "0" then 99 else 2 / ($p.setting | tonumber) end) * (1 + 0.01 * $p.repeat)
      | .cpu_seconds = .cpu_percent / 100 * .wall_seconds]
  | del(.summary)' "$TMP/seed/results.json" >"$big/results.json"
touch "$big/.handmade" # made by jq, not loopbench: lib.sh does not expect it to read back as written
seed_run=$TMP/seed/$(jq -r '.runs[0].dir' "$TMP/seed/results.json")
for dir in $(jq -r '.runs[].dir' "$big/results.json"); do cp -r "$seed_run" "$big/$dir"; done
"$LOOPBENCH" report "$big" -o "$big/report.md" >/dev/null 2>"$TMP/big-report.err"
"$LOOPBENCH" compare "$big" "$big" >"$TMP/verdicts.md" 2>/dev/null || true
COMMENT=$TMP/comment.md
{
  cat "$big/report.md"
  # The charts the report will carry (docs/report.md's example), were it not to yet.
  grep -q '^```mermaid$' "$big/report.md" ||
    awk '/^```mermaid$/ { on = 1 } on { print } /^```$/ && on { on = 0; print "" }' "$SOURCE_ROOT/docs/report.md"
  printf '\n'
  cat "$TMP/verdicts.md"
  printf '\n### Every run\n\n'
  # A column per figure of a run (its histograms and log lines aside).
  jq -r '[.runs[0] | paths(scalars)
      | select(any(.[]; type == "string" and (endswith("histogram") or . == "log_tail")) | not)] as $paths
    | "| run | \($paths | map(map(tostring) | join(".")) | join(" | ")) |",
      "|---|\($paths | map("---") | join("|"))|",
      (.runs | to_entries[] | .key as $i | .value as $r
        | "| \($i + 1) | \([$paths[] as $p | $r | getpath($p) | tostring] | join(" | ")) |")' \
    "$big/results.json"
} >"$COMMENT"
comment_chars=$(jq -Rs length "$COMMENT")
check "the large campaign's comment is over 65536 characters ($comment_chars; report.md $(wc -c <"$big/report.md") bytes)" \
  gt "$comment_chars" 65536
stub long '[{"method": "GET", "body": []},
  {"method": "POST", "status": 201, "body": {"html_url": "https://github.com/o/r/pull/7#long"}}]'
publish long "$COMMENT" --github o/r#7 --api-url "$API"
check "a comment too long for GitHub: exit 0" [ "$RC" -eq 0 ]
check "  ... saying on stderr that it was shortened" \
  grep -q "makes a comment of $((comment_chars + 27)) characters, more than the 65536 GitHub takes" "$TMP/long.err"
jq -rs '.[1].body | fromjson | .body' "$LOG" >"$TMP/long-body.md"
body_chars=$(jq -s '.[1].body | fromjson | .body | length' "$LOG")
check "  ... the body sent is under 65536 characters ($body_chars)" lt "$body_chars" 65536
check "  ... it says so, and what was left out" \
  grep -q '^> \*\*Shortened to fit a GitHub comment\*\* (at most 65536 characters; the whole report makes [0-9]*): left out 1 table of runs' "$TMP/long-body.md"
# in_body PATTERN: every line of the comment matching PATTERN is in the body.
in_body() { ! grep -e "$1" "$COMMENT" | grep -vxFf "$TMP/long-body.md" | grep . >/dev/null; }
check "  ... the headline kept" in_body '^- '
check "  ... the verdicts kept" in_body 'verdict\|\*\*regressed\*\*\|\*\*improved\*\*\|\*\*no change\*\*\|\*\*inconclusive\*\*'
# charts FILE: its Mermaid blocks; same_charts A B: B holds at least 2, and A's.
charts() { awk '/^```mermaid$/,/^```$/' "$1"; }
same_charts() { [ "$(charts "$2" | grep -c '^```mermaid$')" -ge 2 ] && [ "$(charts "$1")" = "$(charts "$2")" ]; }
check "  ... every chart kept, whole" same_charts "$COMMENT" "$TMP/long-body.md"
check "  ... the round-trip table kept" in_body '^| 16 | [0-9]* | 0 |'
check "  ... the table of runs gone, a line in its place" bash -c "
  ! grep -q '^| run |' '$TMP/long-body.md' && grep -q '^\*(a table of 102 lines left out here' '$TMP/long-body.md'"
unstub
# The made-up campaign goes: jq wrote it, not loopbench, so lib.sh's check that every
# results.json reads back as loopbench writes it is not for it.
rm -rf "$big"

# --- 11. help, and the token in no output ------------------------------------------------------
check "publish --help prints its usage" bash -c "'$LOOPBENCH' publish --help | grep -q '^usage: loopbench publish'"
check "help publish prints its usage" bash -c "'$LOOPBENCH' help publish | grep -q '^usage: loopbench publish'"
check "the token appears in no output of loopbench" \
  bash -c "! grep -qF '$TOKEN' '$TMP'/*.out '$TMP'/*.err"
