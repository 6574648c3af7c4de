#!/usr/bin/env bash
# The include graph of src/ by folder (harness/layers.sh [SRC]): prints "from -> to: N" for
# every pair of layers, then each include that points up, and exits 1 if one is not among
# those harness/layers.known lists (the ones not yet untangled: the list may only shrink;
# a listed one that is gone is named too, so the list stays true).
# Layers from the top: cli > measure > output > analysis > model > platform > base; a file
# may include its own folder's headers and any folder below it (docs/architecture.md).
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
while IFS= read -r f; do
  rel=${f#"$src"/}
  from=${rel%%/*}
  [ -n "${rank[$from]:-}" ] || continue
  while IFS= read -r inc; do
    to=${folder_of[$(basename "$inc")]:-}
    [ -n "$to" ] || continue
    edges["$from -> $to"]=$(( ${edges["$from -> $to"]:-0} + 1 ))
    if [ "${rank[$to]}" -lt "${rank[$from]}" ]; then up+=("$rel includes $inc ($to is above $from)"); fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
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
exit $bad
