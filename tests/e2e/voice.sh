#!/usr/bin/env bash
# One voice (issue 34): every command reads the same campaign the same way and says it in
# the same words. One set of real refshard campaigns: three duets of identical builds (A/A),
# one whose head does 60 us more work per wheel turn (a regression), a campaign of settings
# with a health key no line logs, one of a single round; then report, compare DIR, compare
# BASE NEW, compare --pool and history on them must state the same verdict word and
# direction for every row they share, say "cannot test" (and why) where nothing could be
# tested, and write nothing they were not asked to. The verdicts themselves are not
# judged: only that every command gives the same one (the A/A campaigns may read
# inconclusive on a busy host), so it shares the machine.
source "$(dirname "$0")/lib.sh"

t=$TMP/target
mkdir -p "$t"
cp "$REFSHARD" "$t/refshard"
for v in base head mut; do
  mkdir "$t/$v"
  ln -s ../refshard "$t/$v/refshard"
  cp "$SOURCE_ROOT/profiles/refshard.config.json" "$t/$v/"
done
jq '.settings["refshard.workPerTickUs"] = "60"' "$SOURCE_ROOT/profiles/refshard.config.json" \
  >"$t/mut/refshard.config.json"
cp "$SOURCE_ROOT/profiles/refshard.config.json" "$t/"
# a health line every second, so that 1.5 s windows hold one
jq '.command[0] = "{variant_dir}/refshard" | .fixed[0].value = "1"' \
  "$SOURCE_ROOT/profiles/refshard.json" >"$t/variants.json"
jq '.command[0] = "./refshard" | .fixed[0].value = "1" |
  .metrics.health += [{"key": "neverLogged", "label": "never logged"}]' \
  "$SOURCE_ROOT/profiles/refshard.json" >"$t/settings.json"

c=$TMP/c
mkdir "$c"
run=("$LOOPBENCH" run -q -w 0.5 -t 1.5)
(
  cd "$t"
  for k in 1 2 3; do
    "${run[@]}" variants.json -s 2 -n 3 --order duet --variant base=base --variant head=head \
      -o "$c/aa$k"
  done
  "${run[@]}" variants.json -s 2 -n 3 --order duet --variant base=base --variant head=mut \
    -o "$c/mut"
  "${run[@]}" settings.json -s 2,8 -n 3 -o "$c/plain"
  "${run[@]}" variants.json -s 2,8 -n 1 --variant base=base --variant head=head -o "$c/one"
) >"$TMP/runs.log" 2>&1 || {
  cat "$TMP/runs.log"
  fail "the campaigns ran"
  exit 1
}
cd "$c"
lb() { "$LOOPBENCH" "$@" 2>>"$TMP/stderr.log"; }
# jq -e that fails when a file it reads is empty (a command that refused): jq given no
# input says true
jqok() {
  local a
  for a in "$@"; do
    if [[ "$a" == *.json && ! -s "$a" ]]; then return 1; fi
  done
  jq -e "$@" >/dev/null
}

# --- compare DIR and report: the same rows, the same words ------------------------------
for x in aa1 mut; do
  lb compare "$x" -f json >"$x.compare.json" || true
  lb report "$x" -f json >"$x.report.json"
  lb compare "$x" -f md >"$x.compare.md" || true
  lb report "$x" -f md >"$x.report.md"
  check "$x: report states compare DIR's verdict, reason and change for every row" \
    jqok -n --slurpfile c "$x.compare.json" --slurpfile r "$x.report.json" '
      [$c[0].rows[] | select(.kind == "comparison")] as $rows | $r[0].hosts[0].settings as $cells
      | ($rows | length) > 0 and all($rows[]; . as $row
        | [$cells[] | select(.setting == $row.setting and .variant == $row.variant)
           | .verdicts[] | select(.metric == $row.metric)]
        | length == 1 and .[0].verdict == $row.verdict and .[0].why == $row.why
          and .[0].change == $row.change)'
  check "$x: ... and the gate's verdict and its one-line reason" \
    jqok -n --slurpfile c "$x.compare.json" --slurpfile r "$x.report.json" '
      $r[0].hosts[0].gate == {verdict: $c[0].verdict, headline: $c[0].headline}'
  verdict=$(jq -r .verdict "$x.compare.json")
  headline=$(jq -r .headline "$x.compare.json")
  check "$x: compare's Markdown heads with the verdict ($verdict) and the reason" bash -c "
    [ \"\$(sed -n 1p '$x.compare.md')\" = '### loopbench compare: $verdict' ] &&
    grep -qxF -- \"\$1.\" '$x.compare.md'" _ "$headline"
  check "$x: ... report's in the same words" grep -qF -- "**$verdict**: $headline" "$x.report.md"
  # the direction follows the interval: more or less only when it excludes 1 (0 as a change)
  jq -r '.rows[] | select(.metric == "cpu" and .kind == "comparison")
    | [.setting, .variant, if .ci[0] > 0 then "x more" elif .ci[1] < 0 then "x less"
       else "no clear difference" end, .verdict] | @tsv' "$x.compare.json" >"$x.directions"
  while IFS=$'\t' read -r setting variant direction word; do
    check "$x: $setting $variant: the table says '$direction' and '$word'" awk -F' \\| ' \
      -v cell="| $setting $variant" -v d="$direction" -v w="$word" '
        index($0, cell " |") == 1 && index($3, d) && $4 == w { found = 1 }
        END { exit !found }' "$x.report.md"
  done <"$x.directions"
done
check "a regression of 60 us a wheel turn reads regressed in compare DIR" \
  jqok '.verdict == "regressed"' mut.compare.json

# --- compare --pool: each campaign's own verdict is its compare DIR's ------------------
lb compare --pool aa1 aa2 aa3 -f json >pool.json || true
for k in 1 2 3; do
  lb compare "aa$k" -f json >"aa$k.json" || true
  check "pool: campaign $k's verdict on every row is its compare DIR's" \
    jqok -n --slurpfile p pool.json --slurpfile a "aa$k.json" --argjson k "$((k - 1))" '
      all($p[0].rows[]; . as $row | [$a[0].rows[] | select(.setting == $row.setting and
        .variant == $row.variant and .metric == $row.metric)][0].verdict
        == $row.per_host[$k].verdict)'
done
# skipped slots 0 against 0 in every round of every campaign (as on a quiet host)
for k in 1 2 3; do
  mkdir "z$k"
  jq '.runs[].metrics.slots |= (if . then .mean = 0 | .min = 0 | .max = 0 | .sum = 0 else . end)' \
    "aa$k/results.json" >"z$k/results.json"
  touch "z$k/.handmade"
  lb compare "z$k" -f json >"z$k.json" || true
done
lb compare --pool z1 z2 z3 -f json >zpool.json || true
check "pool: skipped slots, 0 against 0 in every campaign, is no change as each says" \
  jqok -n --slurpfile p zpool.json --slurpfile a z1.json '
    [$a[0].rows[] | select(.metric == "slots")] as $own
    | ($own | length) > 0 and all($own[]; .verdict == "no change") and
      ([$p[0].rows[] | select(.metric == "slots")] | length == ($own | length)
       and all(.[]; .verdict == "no change"))'
lb compare --pool mut -f json >pool1.json || true
check "pool of one campaign: its rows' verdicts and changes are compare DIR's" \
  jqok -n --slurpfile p pool1.json --slurpfile m mut.compare.json '
    [$p[0].rows[] | {setting, variant, metric, verdict, change}]
    == [$m[0].rows[] | select(.kind == "comparison") | {setting, variant, metric, verdict, change}]'

# --- compare BASE NEW of campaigns of variants: like with like ---------------------------
lb compare aa1 mut -f json >across.json || true
check "BASE NEW: each variant against the same variant, head's figures NEW's head's" \
  jqok -n --slurpfile x across.json --slurpfile a aa1.compare.json --slurpfile m mut.compare.json '
    ([$x[0].rows[] | select(.metric == "cpu") | .variant] | sort) == ["base", "head"] and
    ([$x[0].rows[] | select(.metric == "cpu" and .variant == "head")][0]) as $h
    | ([$m[0].rows[] | select(.metric == "cpu" and .variant == "head")][0].new_median) == $h.new_median
    and ([$a[0].rows[] | select(.metric == "cpu" and .variant == "head")][0].new_median) == $h.base_median'
lb compare aa1 mut --variant head -f json >across-head.json || true
check "  ... --variant head: head against head alone" \
  jqok '(.rows | length) > 0 and all(.rows[]; .variant == "head")' across-head.json
rc=0
"$LOOPBENCH" compare plain mut >mixed.out 2>mixed.err || rc=$?
check "BASE NEW of a campaign of settings and one of variants: refused, exit 2 (got $rc)" \
  [ "$rc" -eq 2 ]
check "  ... saying what to run instead, nothing on stdout" bash -c \
  "grep -q \"compare 'mut/results.json' alone\" mixed.err && [ ! -s mixed.out ]"

# --- history: cannot tell, and where it can tell, compare's word -----------------------
lb history aa1 aa2 aa3 mut -f json >h4.json || true
lb history aa1 aa2 aa3 mut -f md >h4.md || true
check "history of 4 campaigns: no series tested, each says why" jqok '.tested == 0 and
  any(.series[]; .cannot_test == "4 campaigns: a change point needs 6") and
  all(.series[]; .tested == false and (.cannot_test | endswith("a change point needs 6")))' h4.json
check "  ... and the Markdown says it cannot tell, naming what is missing" \
  grep -q "^Cannot tell: a change point needs 6 campaigns in a series .* the longest series here has 4\." h4.md
lb history aa1 -f md >h1.md || true
check "history of 1 campaign says 1 campaign" grep -q "^## History: 1 campaign, " h1.md
# A kept history: the A/A campaigns five nights, then the regression four (copies of the
# real campaigns, each dated a night later than the one before).
mkdir h
n=0
for x in aa1 aa2 aa3 aa1 aa2 mut mut mut mut; do
  n=$((n + 1))
  mkdir "h/0$n"
  jq --arg at "2026-01-0${n}T00:00:00Z" '.campaign.started_at = $at' "$x/results.json" \
    >"h/0$n/results.json"
  cp -r "$x/runs" "h/0$n/"
  touch "h/0$n/.handmade"
done
lb history h --metric cpu -f json >h9.json || true
lb compare h/01 h/02 h/03 h/04 h/05 h/09 --metric cpu --variant head -f json >h9-compare.json || true
check "history finds the regression at the sixth campaign, head against base" \
  jqok '[.series[] | select(.variant == "head") | .change_points[] | select(.kind == "target")]
    | length == 1 and .[0].campaign == 5 and .[0].verdict == "regressed"' h9.json
check "  ... compare of the newest against the A/A history says regressed too" \
  jqok '[.rows[] | select(.metric == "cpu")] | length == 1 and .[0].verdict == "regressed"' h9-compare.json

# --- cannot test: one round, a key no run logged -------------------------------------------
lb report one -f md >one.md
check "one round: the report cannot test, and says why once" \
  grep -qF "head at idle wait (ms) 8 against base: cannot test, any key: 1 round paired: a paired test needs 2." one.md
lb compare one -f json >one.json || true
lb compare one -f md >one-compare.md || true
check "  ... compare DIR says the same, and its gate is inconclusive for it" jqok '
  .verdict == "inconclusive" and (.headline | test("cannot be tested: 1 round paired: a paired test needs 2"))
  and all(.rows[]; .verdict == "cannot test" and (.why | endswith("1 round paired: a paired test needs 2")))' one.json
lb report plain -f md >plain.md
check "a health key no run logged: cannot test, naming it" \
  grep -qF "never logged cannot test (no completed run recorded it)" plain.md
lb report plain -f json >plain.json
check "the direction follows the interval in a campaign of settings too" jqok '
  [.hosts[0].settings[].verdicts[] | select(.metric == "cpu")] | length == 1
  and all(.[]; (.ci[1] < 0) or (.ci[0] > 0) or (.verdict != "improved" and .verdict != "regressed"))' \
  plain.json

# --- warnings that carry information -------------------------------------------------------
mkdir flat
jq '.runs |= map(if .setting == "2" then .cpu_percent = ([100, 99.99, 99.9][.repeat - 1]) else . end)' \
  plain/results.json >flat/results.json
touch flat/.handmade
lb report flat -f md >flat.md
check "no outlier in runs within 1% of one another (100, 99.99, 99.9)" bash -c \
  '! grep -Eq "run 2 \\\\?#[0-9]+: CPU [0-9.]+% is more than .*\\(an outlier\\)" flat.md'
lb report aa1 aa2 aa3 -f md >three.md
check "an instrument three hosts lack is said once, not per host" bash -c '
  [ "$(grep -o "Energy: not available" three.md | wc -l)" -le 1 ] &&
  [ "$(grep -o "No idle-state figures" three.md | wc -l)" -le 1 ]'

# --- report touches nothing it was not asked to -------------------------------------------
snapshot() { find "$c/aa1" "$c/aa2" -printf '%p %T@ %s\n' | sort; }
before=$(snapshot)
mkdir "$TMP/scratch"
(cd "$TMP/scratch" && "$LOOPBENCH" report "$c/aa1" >/dev/null 2>&1 &&
  "$LOOPBENCH" report "$c/aa1" "$c/aa2" >/dev/null 2>&1 &&
  "$LOOPBENCH" report "$c/aa1" -o - >/dev/null 2>&1)
check "report DIR, report DIR DIR, report -o -: nothing written in the campaigns or here" bash -c "
  [ -z \"\$(ls -A '$TMP/scratch')\" ] && [ ! -e '$c/aa1/report.md' ] && [ ! -e '$c/aa1/plots' ]"
check "  ... the campaigns untouched" [ "$before" = "$(snapshot)" ]
rc=0
"$LOOPBENCH" report aa1 -o "$TMP/nope/x.md" >/dev/null 2>&1 || rc=$?
check "report -o into a directory that does not exist: exit 2 (got $rc), nothing made" \
  bash -c "[ $rc -eq 2 ] && [ ! -e '$TMP/nope' ]"
lb report aa1 -o "$TMP/r.md" >"$TMP/r.out"
check "report -o FILE: Markdown written there, nothing on stdout" bash -c "
  grep -q '^## refshard' '$TMP/r.md' && [ ! -s '$TMP/r.out' ]"
check "  ... its charts Mermaid, and no link to a local file" bash -c "
  grep -q '^\`\`\`mermaid' '$TMP/r.md' && ! grep -q '](' '$TMP/r.md'"
mkdir "$TMP/into"
lb report aa1 -o "$TMP/into" -f csv >/dev/null
lb report aa1 -o "$TMP/r.json" >/dev/null
check "report -o DIR: report.EXT in it; -o FILE.json: JSON, as its name says" bash -c "
  head -1 '$TMP/into/report.csv' | grep -q '^host,kind,' && jq -e '.schema' '$TMP/r.json' >/dev/null"
# On a terminal, text for a person: no chart code, no Markdown escapes.
script -qec "$LOOPBENCH report aa1 aa2" /dev/null >"$TMP/tty.txt" 2>&1 || true
check "report on a terminal: plain text, no Mermaid, no escapes" bash -c "
  grep -q 'CPU verdict' '$TMP/tty.txt' && ! grep -q '%%{init' '$TMP/tty.txt' &&
  ! grep -qF '\\#' '$TMP/tty.txt' && ! grep -q '^|---' '$TMP/tty.txt'"
script -qec "$LOOPBENCH report aa1 -f md" /dev/null >"$TMP/tty.md" 2>&1 || true
check "  ... Markdown there when asked for" grep -q '^```mermaid' "$TMP/tty.md"
cd /
