#!/usr/bin/env bash
# Hostile pull request (docs/reliability.md): no code from data. A results.json made
# elsewhere carries its names (setting values, variant names, labels, the profile's name,
# the host) into plots.gp, Markdown and CSV: a gnuplot payload runs nothing, Markdown and
# CSV read them as text, and a control character in one is refused, by report and
# compare on reading and by run on the command line and in a profile.
source "$(dirname "$0")/lib.sh"

variants_campaign "$TMP/real"

# hostile NAME JQ-ARGS...: a copy of the real campaign in $TMP/NAME whose names are
# replaced: setting "0" by $s0, "2" by $s2, variant "base" by $vb, "head" by $vh, and the
# labels, first health key, profile name and host name by $knob, $hlabel, $key, $name,
# $host (each default: as it was).
hostile() {
  local dir=$TMP/$1; shift
  mkdir -p "$dir"
  cp -r "$TMP/real/runs" "$dir/"
  touch "$dir/.handmade" # not a campaign loopbench wrote: lib.sh's read-back skips it
  # jq keeps the first value of an --arg given twice: the caller's, then the defaults
  jq "$@" --arg s0 0 --arg s2 2 --arg vb base --arg vh head --arg knob "idle wait (ms)" \
    --arg hlabel "skipped slots" --arg key slots --arg name refshard --arg host "$(hostname)" '
    def set: if . == "0" then $s0 elif . == "2" then $s2 else . end;
    def var: if . == "base" then $vb elif . == "head" then $vh else . end;
    .campaign.settings |= map(set) | .campaign.baseline |= set
    | .campaign.plan |= map(.setting |= set | .variant |= var)
    | .runs |= map(.setting |= set | .variant |= var)
    | .campaign.variants |= map(.name |= var)
    | .profile.knob.label = $knob | .profile.health[0].label = $hlabel
    | .profile.health[0].key = $key | .profile.name = $name | .host.hostname = $host' \
    "$TMP/real/results.json" >"$dir/results.json"
}

# made FILE: a payload ran (it touches $pwn-NAME)
pwn=$TMP/pwned
made() { ls "$TMP" | grep "^pwned-$1" >/dev/null; }

# --- 1. gnuplot: a payload in any name runs nothing ------------------------------------
# A quote ends gnuplot's string unless doubled; a backslash does not escape in single
# quotes; the double-quoted words of `settings` take no double quote either.
hostile plot --arg s2 "x'; system(\"touch $pwn-setting\"); '" \
  --arg vh "h\"; system(\"touch $pwn-variant\"); \"" \
  --arg knob "k\\'; system(\"touch $pwn-knob\"); \\'" --arg s0 "0' . system(\"touch $pwn-dot\") . '"
if command -v gnuplot >/dev/null; then
  rc=0
  "$LOOPBENCH" report "$TMP/plot" --plots "$TMP/plot/plots" >/dev/null 2>"$TMP/plot.err" || rc=$?
  check "report of a campaign whose names carry gnuplot payloads exits 0" [ "$rc" -eq 0 ]
  check "  ... gnuplot drew every plot" test -s "$TMP/plot/plots/cpu.svg" -a -s "$TMP/plot/plots/cpu-time.svg"
  check "  ... with the names as text in its legend" grep -qF "pwned-setting" "$TMP/plot/plots/cpu-time.svg"
  check "  ... and no payload ran (no file made)" bash -c "! ls '$TMP' | grep -q pwned"
  check "  ... nor when gnuplot runs the script kept again" bash -c "
    cd '$TMP/plot/plots' && gnuplot plots.gp 2>/dev/null && ! ls '$TMP' | grep -q pwned"
else
  echo "skip: gnuplot is not installed: the gnuplot payloads are not run"
fi

# --- 2. Markdown: names read as text --------------------------------------------------
zwj=$'\xe2\x80\x8d' # U+200D, after an '@' that would mention someone
hostile md --arg s2 '<img src=x onerror=alert(1)>' --arg vh 'a|b@octocat' \
  --arg knob 'knob ```js' --arg hlabel '**b** [l](http://x) `c`' --arg name '@github/security' \
  --arg host 'h|ost <b>@octocat</b>'
"$LOOPBENCH" report "$TMP/md" -o "$TMP/md/report.md" >/dev/null 2>"$TMP/md.err"
rc=0
"$LOOPBENCH" compare "$TMP/md" >"$TMP/compare.md" 2>"$TMP/compare.err" || rc=$?
check "compare of the hostile campaign runs (exit 0 or 1)" [ "$rc" -le 1 ]
# What Markdown reads outside code blocks and spans, which hold anything as text (the
# Mermaid charts' labels are Mermaid's to escape: tests/unit/check-mermaid.c).
prose() { awk '/^```/ { code = !code; next } !code' "$1" | sed -E 's/(`+)[^`]+\1//g'; }
no_html() { ! prose "$1" | grep -E '(^|[^\\])<(img|b)' >/dev/null; }
no_mention() { ! prose "$1" | grep -E '@[[:alnum:]]' >/dev/null; }
# Every table row has as many cells as its header: a '|' in a name is escaped.
tables_whole() {
  awk '{ gsub(/\\\|/, "") } /^\|/ { c = gsub(/\|/, "|"); if (!n) n = c; else if (c != n) bad = 1; next }
    { n = 0 } END { exit bad }' "$1"
}
# No code fence but the charts' (each opened and closed).
fences_charts() { [ "$(grep -c '^```' "$1")" -eq $((2 * $(grep -c '^```mermaid$' "$1"))) ]; }
for md in "$TMP/md/report.md" "$TMP/compare.md"; do
  f=${md#"$TMP"/}
  check "$f: no raw HTML tag from a name" no_html "$md"
  check "$f: no @mention: a joiner after each '@' before a name" no_mention "$md"
  check "  ... the names there all the same, escaped" grep -qF "\<img src=x onerror=alert(1)\>" "$md"
  check "$f: every table row as wide as its header" tables_whole "$md"
  check "$f: no code fence opened by a name" fences_charts "$md"
done
check "report.md: the title's '@' and backticks escaped" \
  grep -qxF "## @${zwj}github/security: knob \\\`\\\`\\\`js" "$TMP/md/report.md"
check "report.md: emphasis, link and code span in a label escaped" \
  grep -qF '\*\*b\*\* \[l\](http://x) \`c\`' "$TMP/md/report.md"
check "report.md: the host in the footnote escaped" \
  grep -qF "**h\\|ost \\<b\\>@${zwj}octocat\\</b\\>**" "$TMP/md/report.md"
check "compare: the variant's rows escaped" grep -qF "| \\<img src=x onerror=alert(1)\\> a\\|b@${zwj}octocat |" \
  "$TMP/compare.md"
check "compare: a name in a code span stays whole" grep -qF 'profile `@github/security`' "$TMP/compare.md"

# --- 3. CSV: no formulas ---------------------------------------------------------------
hostile csv --arg s2 '=HYPERLINK("http://x","y")' --arg vb '+1' --arg vh '@SUM(A1:A2)' \
  --arg key '-2+3' --arg host '=cmd|calc'
"$LOOPBENCH" report "$TMP/csv" -f csv -o "$TMP/csv/report.csv" >/dev/null 2>"$TMP/csv.err"
check "CSV: RFC 4180 (every row as wide as the header) and no cell a formula" python3 -c '
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
number = re.compile(r"-[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$")
bad = [c for r in rows for c in r if c[:1] in ("=", "+", "@", "\t", "\r") or (c[:1] == "-" and not number.match(c))]
sys.exit(len({len(r) for r in rows}) != 1 or bad != [] or len(rows) < 3)' "$TMP/csv/report.csv"
csv_has() { grep -qF -- "$1" "$TMP/csv/report.csv"; }
check "  ... the formula kept as text, quoted, behind a single quote" \
  csv_has "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""
for cell in "'+1" "'@SUM(A1:A2)" "'-2+3" "'=cmd|calc"; do
  check "  ... $cell" csv_has "$cell"
done
check "  ... and numbers stay numbers" grep -q "^'=cmd|calc,run,0," "$TMP/csv/report.csv"

# --- 4. control characters: bad input when read back -----------------------------------
# escaped FILE: no C0 control but newline, no DEL, no C1 control in FILE.
escaped() { ! LC_ALL=C grep -qP '[\x01-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1"; }
# expect2 WHAT KEY COMMAND ARGS...: exit 2, one line on stderr naming the file and the
# key, the character shown escaped (never sent to the terminal raw).
expect2() {
  local what=$1 key=$2 rc=0; shift 2
  "$LOOPBENCH" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
  check "$what: exit 2" [ "$rc" -eq 2 ]
  check "  ... one line naming the file and the key" bash -c "[ \$(wc -l <'$TMP/err') -eq 1 ] &&
    grep -qF -- \"/results.json': $key '\" '$TMP/err'"
  check "  ... the character shown escaped" escaped "$TMP/err"
}
hostile nl --arg s2 $'2\nsystem("touch '"$pwn"'-nl")'
expect2 "report: a newline in a setting value" 'campaign.settings[1]' report "$TMP/nl"
check "  ... nothing written, nothing run" bash -c "[ ! -e '$TMP/nl/report.md' ] && ! ls '$TMP' | grep -q pwned-nl"
hostile esc --arg vh $'head\e]0;owned\a'
expect2 "compare: an OSC escape in a variant name" 'campaign.variants[1].name' compare "$TMP/esc"
hostile c1 --arg hlabel $'lag\xc2\x9b31m'
expect2 "report: a C1 control (CSI) in a label" 'profile.health[0].label' report "$TMP/c1"
hostile bidi --arg name $'ref\xe2\x80\xaeshard'
expect2 "compare: a right-to-left override in the profile's name" 'profile.name' compare "$TMP/bidi"
hostile tab --arg host $'desk\tx'
expect2 "report -f csv: a tab in the host's name" 'host.hostname' report "$TMP/tab" -f csv

# --- 5. control characters: refused by run ---------------------------------------------
# runrefused WHAT WANT ARGS...: run exits 2 at once, its one line naming the value
# escaped, and no run starts (no output directory).
runrefused() {
  local what=$1 want=$2 rc=0; shift 2
  rm -rf "$TMP/refused"
  (cd "$TMP" && "$LOOPBENCH" run "$@" -n 1 -w 0 -t 0.3 -o "$TMP/refused" -q) >/dev/null \
    2>"$TMP/err" || rc=$?
  check "run: $what: exit 2" [ "$rc" -eq 2 ]
  check "  ... saying so, the value escaped" grep -qF -- "$want" "$TMP/err"
  check "  ... no control character sent to the terminal" escaped "$TMP/err"
  check "  ... and nothing run" test ! -e "$TMP/refused"
}
runrefused "an escape in -s" "--settings '0,2\\x1b[2J': a control character at byte 3" \
  refshard.json --variant base=base --variant head=head -s $'0,2\e[2J'
runrefused "a newline in --variant's name" "--variant 'he\\nad=head': expected NAME=DIR" \
  refshard.json --variant base=base --variant $'he\nad=head'
jq '.knob.values = ["0", "2\u0007"]' "$TMP/refshard.json" >"$TMP/bell.json"
runrefused "a control character in the profile's knob.values" \
  "knob.values[1]: '2\\x07': a control character at byte 1" bell.json \
  --variant base=base --variant head=head

# --- 6. paths: a campaign made elsewhere leads no write or read out of itself ----------
# Its directory may hold links, planted where report writes when asked (plots/, the images
# gnuplot makes, the data files) and leading to a file of the user's; and its runs[].dir
# may point out of it (report reads series.csv there, --resume would write there).
victim=$TMP/victim
printf 'precious\n' >"$victim"
mkdir -p "$TMP/victimdir"
hostile links
mkdir -p "$TMP/links/plots"
for f in cpu.svg cpu.dat plots.gp gnuplot.log; do ln -s "$victim" "$TMP/links/plots/$f"; done
"$LOOPBENCH" report "$TMP/links" --plots "$TMP/links/plots" >/dev/null 2>"$TMP/links.err" || true
check "report over links planted in plots/ writes through none (the victim unchanged)" \
  grep -qx precious "$victim"
check "  ... and every planted link is gone or refused, none followed" \
  bash -c "[ \"\$(cat '$victim')\" = precious ] && ! find '$TMP/victimdir' -type f | grep -q ."
hostile dirlink
ln -s "$TMP/victimdir" "$TMP/dirlink/plots"
rc=0
"$LOOPBENCH" report "$TMP/dirlink" --plots "$TMP/dirlink/plots" >/dev/null 2>"$TMP/dirlink.err" || rc=$?
check "report refuses a plots/ that is a link to another directory (exit 1)" [ "$rc" -eq 1 ]
check "  ... saying so" grep -q "plots' is a symbolic link" "$TMP/dirlink.err"
check "  ... and writes nothing there" bash -c "! find '$TMP/victimdir' -type f | grep -q ."
for dir in "../../victimdir" "/etc" "runs/../../x"; do
  hostile outside
  jq --arg d "$dir" '.runs[0].dir = $d | .campaign.plan[0].dir = $d' "$TMP/outside/results.json" >"$TMP/outside/r" && mv "$TMP/outside/r" "$TMP/outside/results.json"
  rc=0
  "$LOOPBENCH" report "$TMP/outside" --no-plots >/dev/null 2>"$TMP/outside.err" || rc=$?
  check "report refuses a run's dir '$dir' (exit 2)" [ "$rc" -eq 2 ]
  check "  ... naming it" grep -qF "plan[0].dir: '$dir' is not a relative path inside the campaign directory" "$TMP/outside.err"
  rm -rf "$TMP/outside"
done
