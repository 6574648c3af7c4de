#!/usr/bin/env bash
# A new user's mistakes (issue 34): bad command lines and bad profiles, each tried in an
# empty scratch directory. Each must get one line on stderr, "loopbench: " first, that
# names the option, field or file at fault (and at most a second line, the usage hint),
# exit status 2, nothing on stdout, and nothing written anywhere: the scratch directory
# stays empty, and no directory the line named is made.
source "$(dirname "$0")/lib.sh"

scratch=$TMP/scratch
mkdir "$scratch"
# try NEEDLE ARGS...: loopbench ARGS from the scratch directory, as above; NEEDLE is a
# fixed string the message must hold.
try() {
  local needle=$1 rc=0
  shift
  (cd "$scratch" && "$LOOPBENCH" "$@") >"$TMP/out" 2>"$TMP/err" || rc=$?
  local first lines
  first=$(head -1 "$TMP/err")
  lines=$(wc -l <"$TMP/err")
  if [ "$rc" -eq 2 ] && [ "$lines" -ge 1 ] && [ "$lines" -le 2 ] &&
     [[ "$first" == "loopbench: "* ]] && [[ "$first" == *"$needle"* ]] &&
     { [ "$lines" -eq 1 ] || grep -q "^try 'loopbench" <(sed -n 2p "$TMP/err"); } &&
     [ ! -s "$TMP/out" ] && [ -z "$(ls -A "$scratch")" ]; then
    ok "loopbench $* -> $first"
  else
    fail "loopbench $* -> exit $rc, stdout $(wc -c <"$TMP/out") bytes, scratch: $(ls -A "$scratch"), stderr: $(cat "$TMP/err")"
    rm -rf "${scratch:?}"/* "$scratch"/.[!.]* 2>/dev/null || true
  fi
}

# --- 20 bad command lines ---------------------------------------------------------------
try "unknown command 'runn' (did you mean 'run'?)" runn
try "unknown option '--repet' (did you mean '--repeat'?)" run --repet 3
try "option '-n' needs a value" run -n
try "option '--json' takes no value" run --json=yes
try "--repeat '1e20': expected a whole number from 1 to 100000" run --repeat 1e20
try "-t '1e-06': expected seconds from 0.1 to 86400" run -t 1e-06
try "-w '1e308': expected seconds from 0 to 86400" run -w 1e308
try "--order 'sideways': expected interleave, random, grouped or duet" run --order sideways
try "-o '$TMP/missing/out': expected a path in a directory that exists" run -o "$TMP/missing/out"
try "'$TMP/none.json'" run "$TMP/none.json"
try "option '--m' is ambiguous: it could be --metric, --max-p" history --m 3 "$TMP"
try "--min-segment '1': expected a whole number from 2 to 1000" history --min-segment 1 "$TMP"
try "-f 'yaml': expected" report -f yaml "$TMP"
try "-o '$TMP/missing/r.md': expected a path in a directory that exists" \
  report "$TMP" -o "$TMP/missing/r.md"
try "--plots '$TMP/missing/plots': expected a path in a directory that exists" \
  report "$TMP" --plots "$TMP/missing/plots"
try "--max-increase '-5': expected a percentage" compare --max-increase -5 "$TMP" "$TMP"
try "--fail-on 'everything': expected inconclusive" compare --fail-on everything "$TMP"
try "unknown option '--jsn' (did you mean '--json'?)" compare --jsn "$TMP"
try "--seconds '0': expected seconds from 0.1" sample --pid 1 --seconds 0
try "-t '0': expected seconds from 0.5 to 3600" probe -t 0
try "expected PROFILE" validate
try "unknown command 'nosuch'" help nosuch
try "unknown option '--verbose': expected a command first" --verbose
check "no directory a line named was made" [ ! -e "$TMP/missing" ]

# --- 20 bad profiles --------------------------------------------------------------------
p=$TMP/profiles
mkdir "$p"
cp "$SOURCE_ROOT/profiles/refshard.config.json" "$p/"
printf 'not a program\n' >"$p/notexec"
# A valid profile to start from: refshard's, its program and config beside it.
base=$(jq --arg r "$REFSHARD" '.command[0] = $r' "$SOURCE_ROOT/profiles/refshard.json")
# bad NAME NEEDLE JQ: the base profile through JQ, saved as NAME.json; validate and run of
# it must each fail as try says, NEEDLE naming the field.
bad() {
  local name=$1 needle=$2 filter=$3
  jq "$filter" <<<"$base" >"$p/$name.json"
  try "profile '$p/$name.json': $needle" validate "$p/$name.json"
  try "profile '$p/$name.json': $needle" run "$p/$name.json"
}
bad unknown-key "unknown key 'comand' (did you mean 'command'?)" '.comand = .command'
bad no-command "missing key 'command'" 'del(.command)'
bad no-program "command[0]: 'no-such-program-34' is not found in PATH" '.command[0] = "no-such-program-34"'
bad missing-path "command[0]: './bin/server' does not exist relative to its cwd" '.command[0] = "./bin/server"'
bad not-exec "command[0]: './notexec' (relative to its cwd) is not an executable file" \
  '.command[0] = "./notexec"'
bad dup-value "knob.values[1]: duplicate value '0'" '.knob.values = ["0", "0"]'
bad baseline "knob.baseline: '3' is not one of knob.values" '.knob.baseline = "3"'
bad key-space "metrics.health[0]: key 'lag peak=ms': no KEY=VALUE token" \
  '.metrics.health[0].key = "lag peak=ms"'
bad key-eq "metrics.health[1]: key 'a=b': no KEY=VALUE token" '.metrics.health[1].key = "a=b"'
bad warmup "defaults.warmup: expected a number >= 0 and at most 86400, got 1e+308 (a day" \
  '.defaults.warmup = 1e308'
bad long-window "defaults.sample: expected a number > 0 and at most 86400, got 1e+308" \
  '.defaults.sample = 1e308'
bad short-window "defaults.sample: expected at least 0.1 seconds, got 1e-06" \
  '.defaults.sample = 0.000001'
bad repeat "defaults.repeat: expected a whole number from 1 to 100000, got 1e+20" \
  '.defaults.repeat = 1e20'
bad repeat0 "defaults.repeat: expected a whole number from 1 to 100000, got 0" '.defaults.repeat = 0'
bad grace "stop.grace: expected a number >= 0, got -5" '.stop.grace = -5'
bad signal "stop.signal: unknown signal 'SIGFOO'" '.stop.signal = "SIGFOO"'
bad two-ready "ready: expected exactly one of" '.ready.delay = 1'
bad regex "ready.log" '.ready.log = "("'
bad timeout "ready.timeout: expected a number > 0 and at most 86400, got 1e+09" '.ready.timeout = 1e9'
bad cwd "cwd" '.cwd = "no-such-dir"'
bad config "knob.config.file" '.knob.config.file = "no-such-config.json"'
bad primary "metrics.primary" '.metrics.primary = ["cpu", "lagg"]'
printf '{ "command": ["x"], }\n' >"$p/syntax.json"
try "profile '$p/syntax.json' line 1 column" validate "$p/syntax.json"
check "nothing written beside the profiles either" bash -c "
  [ \"\$(ls -A '$p' | grep -v '\\.json\$' | sort | tr '\\n' ' ')\" = 'notexec ' ]"
