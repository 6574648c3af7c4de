#!/usr/bin/env bash
# The release check: `meson dist` makes the source tarball, which is unpacked in a
# temporary directory, built on its own (no git there: its version is meson.build's
# alone) and its unit tests run. Usage: harness/release.sh [--allow-dirty]
# (--allow-dirty: a tree with uncommitted changes, which meson dist refuses otherwise).
# Prints the tarball's path; exits non-zero at the first step that fails.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
allow=()
case "${1:-}" in
  --allow-dirty) allow=(--allow-dirty) ;;
  "") ;;
  *) echo "usage: harness/release.sh [--allow-dirty]" >&2; exit 2 ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/loopbench-release-XXXXXX")
trap 'rm -rf "$work"' EXIT
meson setup "$work/dist-build" "$root" >/dev/null
meson dist -C "$work/dist-build" --no-tests --formats xztar "${allow[@]}"
tarball=$(ls "$work"/dist-build/meson-dist/loopbench-*.tar.xz)
mkdir "$work/src"
tar -xJf "$tarball" -C "$work/src" --strip-components=1
meson setup "$work/build" "$work/src" >/dev/null
ninja -C "$work/build"
"$work/build/loopbench" --version
meson test -C "$work/build" --suite unit --print-errorlogs
mkdir -p "$root/dist"
cp "$tarball" "$root/dist/"
echo "release: dist/$(basename "$tarball") builds and passes the unit tests"
