#!/usr/bin/env bash
# The include graph of src/ by folder (harness/layers.sh [SRC]): prints "from -> to: N" for
# every pair of layers, then each include that points up, and exits 1 if one is not among
# those harness/layers.known lists (the ones not yet untangled: the list may only shrink;
# a listed one that is gone is named too, so the list stays true).
# Layers from the top: cli > measure > output > analysis > model > platform > base; a file
# may include its own folder's headers and any folder below it (docs/architecture.md).
#
# Then the circles between modules, which must be none (exit 1 for any). A module is a
# header and the sources that implement it: each .c belongs to the first header of its own
# folder that it includes (the rule every file keeps: x.c includes x.h first; a platform
# back-end, platform.h; a command, commands.h), and a .c that includes none is a module of
# its own. A module uses another when one of its files includes the other's header, which
# is how a file takes another's names. A circle is a set of modules each of which reaches
# every other by uses (two that include each other, or a longer loop): printed with the
# includes that tie it, "circle: A B: a.c includes b.h; b.c includes a.h".
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/.." && pwd)/src}
known=$(dirname "$0")/layers.known
layers=(cli measure output analysis model platform base)
declare -A rank folder_of
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done
# Every header's layer, by its name (the include path holds every folder).
while IFS= read -r h; do
  rel=${h#"$src"/}
  folder_of[$(basename "$h")]=${rel%%/*}
done < <(find "$src" -name '*.h' -o -name '*.h.in')
folder_of[version.h]=base
declare -A edges
up=()
ties=() # "from-module to-module file header", one per include between modules
while IFS= read -r f; do
  rel=${f#"$src"/}
  from=${rel%%/*}
  [ -n "${rank[$from]:-}" ] || continue
  name=$(basename "$f")
  module=$from/${name%.*}
  incs=()
  while IFS= read -r inc; do
    to=${folder_of[$(basename "$inc")]:-}
    [ -n "$to" ] || continue
    incs+=("$inc")
    edges["$from -> $to"]=$(( ${edges["$from -> $to"]:-0} + 1 ))
    if [ "${rank[$to]}" -lt "${rank[$from]}" ]; then up+=("$rel includes $inc ($to is above $from)"); fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
  if [[ $f == *.c ]]; then
    for inc in "${incs[@]}"; do
      if [ "${folder_of[$(basename "$inc")]}" = "$from" ]; then
        h=$(basename "$inc")
        module=$from/${h%.h}
        break
      fi
    done
  fi
  for inc in "${incs[@]}"; do
    h=$(basename "$inc")
    to=${folder_of[$h]}/${h%.h}
    [ "$to" = "$module" ] || ties+=("$module $to $rel $inc")
  done
done < <(find "$src" -name '*.c' -o -name '*.h' | sort)
for e in "${!edges[@]}"; do echo "$e: ${edges[$e]}"; done | sort
bad=0
for u in "${up[@]}"; do
  if grep -qxF "$u" "$known"; then echo "up (known): $u"; else echo "up: $u"; bad=1; fi
done
while IFS= read -r k; do
  case "$k" in '' | '#'*) continue ;; esac
  printf '%s\n' "${up[@]}" | grep -qxF "$k" || { echo "gone, remove it from $known: $k"; bad=1; }
done <"$known"
echo "layers: ${#up[@]} includes point up ($(grep -cv '^#' "$known") known)"
# The circles: the strongly connected components of the modules' uses (Tarjan), each of
# two modules or more.
circles=$(printf '%s\n' "${ties[@]}" | awk '
  function visit(v,    i, w) {
    index_of[v] = low[v] = ++counter
    stack[++top] = v
    on_stack[v] = 1
    for (i = 1; i <= n_out[v]; i++) {
      w = out[v, i]
      if (!(w in index_of)) {
        visit(w)
        if (low[w] < low[v]) low[v] = low[w]
      } else if (on_stack[w] && index_of[w] < low[v])
        low[v] = index_of[w]
    }
    if (low[v] == index_of[v]) {
      size = 0
      do {
        w = stack[top--]
        on_stack[w] = 0
        component[w] = v
        for (i = ++size; i > 1 && member[i - 1] > w; i--) member[i] = member[i - 1]
        member[i] = w
      } while (w != v)
      if (size > 1) {
        circle[v] = member[1]
        for (i = 2; i <= size; i++) circle[v] = circle[v] " " member[i]
      }
    }
  }
  NF == 4 {
    if (!(($1, $2) in seen)) { seen[$1, $2] = 1; out[$1, ++n_out[$1]] = $2 }
    node[$1] = node[$2] = 1
    tie[++n_ties] = $0
  }
  END {
    for (v in node) if (!(v in index_of)) visit(v)
    for (c in circle) {
      line = "circle: " circle[c] ":"
      sep = " "
      for (i = 1; i <= n_ties; i++) {
        split(tie[i], t, " ")
        if (component[t[1]] == c && component[t[2]] == c) {
          line = line sep t[3] " includes " t[4]
          sep = "; "
        }
      }
      print line
    }
  }' | sort)
[ -z "$circles" ] || { echo "$circles"; bad=1; }
echo "circles: $(printf '%s' "$circles" | grep -c '^circle:' || true) between modules"
exit $bad
