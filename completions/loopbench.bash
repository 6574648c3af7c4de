# bash completion for loopbench (installed as share/bash-completion/completions/loopbench).
#
# Commands and each command's options are read from loopbench itself (`loopbench --help`,
# `loopbench help COMMAND`), so they are never out of date; arguments complete as what
# they are: profiles (*.json), result directories, reports (*.md), option values.

# The commands `loopbench --help` lists, one a line.
_loopbench_commands() {
  "$1" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}

# The options of `loopbench help COMMAND`: every --long and -s it lists, and --help,
# which every command takes.
_loopbench_options() {
  { "$1" help "$2" 2>/dev/null |
      grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z-]*' | grep -oE -- '-(-[a-z][a-z-]*|[A-Za-z])'
    echo --help; } | awk '!seen[$0]++'
}

# Directories: result directories, and the way to them.
_loopbench_dirs() {
  compopt -o filenames 2>/dev/null
  COMPREPLY=($(compgen -d -- "$1"))
}

_loopbench() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null; then
    _init_completion || return
  else
    cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
  fi
  local lb=${words[0]} cmd=""
  local i
  for ((i = 1; i < cword; i++)); do
    case ${words[i]} in -*) ;; *) cmd=${words[i]}; break ;; esac
  done
  if [ -z "$cmd" ]; then
    COMPREPLY=($(compgen -W "$(_loopbench_commands "$lb") --help --version" -- "$cur"))
    return
  fi

  # The value of the option before the cursor.
  case $prev in
    -o | --output | --plots | --resume) _loopbench_dirs "$cur"; return ;;
    --order) COMPREPLY=($(compgen -W "interleave random grouped duet" -- "$cur")); return ;;
    --cpu-source) COMPREPLY=($(compgen -W "auto perf tree" -- "$cur")); return ;;
    --pass-env) COMPREPLY=($(compgen -e -- "$cur")); return ;;
    --fail-on) COMPREPLY=($(compgen -W "inconclusive" -- "$cur")); return ;;
    -f | --format)
      case $cmd in
        report) COMPREPLY=($(compgen -W "md text csv json" -- "$cur")) ;;
        compare | history | tune) COMPREPLY=($(compgen -W "md text json" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
      esac
      return ;;
    --log) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); return ;;
    -s | --settings | -n | --repeat | -w | --warmup | -t | --sample | --seed | --interval | \
      --pid | --seconds | --marker | --metric | --max-increase | --alpha | --title | \
      --github | --api-url | --webhook | --primary | --cpus | --rotate | --commit | \
      --max-p | --min-magnitude | --min-segment | --recent | --budget | --variant | --note | \
      --range | --guard | --reference | --minimize | --max-runs | --max-time) return ;;
  esac

  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_loopbench_options "$lb" "$cmd")" -- "$cur"))
    return
  fi
  compopt -o filenames 2>/dev/null
  case $cmd in
    run | tune | validate) COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur")) ;;
    report | compare | history | restore) _loopbench_dirs "$cur" ;;
    publish) COMPREPLY=($(compgen -f -X '!*.md' -- "$cur") $(compgen -d -- "$cur")) ;;
    help) COMPREPLY=($(compgen -W "$(_loopbench_commands "$lb")" -- "$cur")) ;;
    exec) COMPREPLY=($(compgen -c -- "$cur")) ;;
  esac
}

complete -F _loopbench loopbench
