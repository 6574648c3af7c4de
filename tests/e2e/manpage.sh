#!/usr/bin/env bash
# loopbench(1) (man/loopbench.1) cannot drift from the program: a section for every
# command `loopbench --help` lists, the same options as each command's --help, and
# every environment variable a --help names; and man renders it without a warning.
source "$(dirname "$0")/lib.sh"
MAN=$SOURCE_ROOT/man/loopbench.1

# The options of a --help text: every -s and --long at the start of an option line;
# -h/--help, which every command takes, is said once in the man page.
help_options() {
  { grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z-]*' | grep -oE -- '-(-[a-z][a-z-]*|[A-Za-z])' |
    grep -vx -e -h -e --help || true; } | sort -u
}
# man_options CMD: the options of the man page's `.SS CMD`: what each .TP's tag names.
man_options() {
  awk -v cmd="$1" '$1 == ".SS" { on = ($2 == cmd); next } /^\.SH/ { on = 0 }
    on && prev == ".TP" { print } { prev = $0 }' "$MAN" | sed 's/\\-/-/g' |
    { grep -oE -- '(^| )-(-[a-z][a-z-]*|[A-Za-z])\b' || true; } | tr -d ' ' | sort -u
}

commands=$("$LOOPBENCH" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' | sort)
check "a section for every command ($(echo $commands))" \
  [ "$commands" = "$(awk '$1 == ".SS" { print $2 }' "$MAN" | sort)" ]
for cmd in $commands; do
  [ "$cmd" = help ] && continue
  want=$("$LOOPBENCH" help "$cmd" | help_options)
  have=$(man_options "$cmd")
  check "$cmd: the man page's options are --help's ($(echo $want))" [ "$want" = "$have" ]
  [ "$want" = "$have" ] || diff <(echo "$want") <(echo "$have") || true
done

envs=$(for cmd in ${commands/help/}; do "$LOOPBENCH" help "$cmd"; done |
  grep -oE '\$?\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b' | tr -d '$' | sort -u)
man_envs=$(awk '/^\.SH ENVIRONMENT/ { on = 1; next } /^\.SH/ { on = 0 }
  on && prev == ".TP" { print $2 } { prev = $0 }' "$MAN")
for env in $envs; do
  check "environment variable $env (named by a --help) is in ENVIRONMENT" grep -qx "$env" <<<"$man_envs"
done
for status in 0 1 2 3 129 130 143; do
  check "exit status $status is in EXIT STATUS" \
    bash -c "awk '/^\.SH EXIT STATUS/ { on = 1; next } /^\.SH/ { on = 0 } on' '$MAN' | grep -q '$status'"
done

if command -v man >/dev/null; then
  MANWIDTH=80 man --warnings -l "$MAN" >"$TMP/man.txt" 2>"$TMP/man.err"
  check "man -l renders it, without a warning" \
    bash -c "grep -q '^ *loopbench run \[PROFILE\]' '$TMP/man.txt' && [ ! -s '$TMP/man.err' ]"
  # a word and an option run together ("compare--fail-on"): .BR alternating fonts with no
  # space between its arguments
  check "no word runs into an option in the rendered page" \
    bash -c "! grep -nE '[[:alnum:]]--[a-z]' '$TMP/man.txt'"
else
  echo "skip: man is not installed (apt-get install man-db)"
fi
