#!/usr/bin/env bash
# The Debian package (debian/): built by dpkg-buildpackage from a copy of the source tree
# (a package build writes ../*.deb beside the tree it builds, and debian/ build files in
# it), clean by lintian at its default level, installed by dpkg, the installed `loopbench
# run` with no argument completed by an unprivileged user in a temporary directory, and
# purged leaving none of the package's files behind.
source "$(dirname "$0")/lib.sh"

for tool in dpkg-buildpackage dh lintian; do
  if ! command -v "$tool" >/dev/null; then
    skip_test "the Debian package needs $tool (Debian's dpkg-dev, debhelper, lintian)"
  fi
done
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
  skip_test "installing the Debian package needs root (dpkg -i), and running it as another user setpriv"
fi
# Never replace nor purge a loopbench this test did not install.
if dpkg-query -W -f='${Status}' loopbench 2>/dev/null | grep -q installed ||
    [ -e /usr/bin/loopbench ] || [ -e /usr/bin/refshard ] || [ -e /usr/share/loopbench ]; then
  skip_test "a loopbench is already installed in /usr (the package or meson install); this test would replace it"
fi

# The tracked and untracked files of the tree, not its build directories.
mkdir "$TMP/src"
if git -C "$SOURCE_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$SOURCE_ROOT" && git ls-files -z -co --exclude-standard | tar -c --null -T - -f -) |
    tar -x -C "$TMP/src" -f -
else
  (cd "$SOURCE_ROOT" && tar -c --exclude='./build*' -f - .) | tar -x -C "$TMP/src" -f -
fi

start=$SECONDS
rc=0
(cd "$TMP/src" && DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" \
  dpkg-buildpackage -b -us -uc) >"$TMP/build.log" 2>&1 || rc=$?
check "dpkg-buildpackage -b -us -uc builds it (exit 0, $((SECONDS - start)) s)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || { tail -40 "$TMP/build.log"; exit 1; }
if [[ " ${DEB_BUILD_OPTIONS:-} " == *" nocheck "* ]]; then
  echo "skip: the unit suite in the package build (DEB_BUILD_OPTIONS has nocheck)"
else
  check "  ... the unit suite ran in the build, none failed" \
    bash -c "grep -q 'meson test --suite unit --no-suite slow' '$TMP/build.log' &&
      grep -Eq '^Ok: +[1-9]' '$TMP/build.log' && grep -Eq '^Fail: +0' '$TMP/build.log'"
fi
deb=$(ls "$TMP"/loopbench_*.deb)
changes=$(ls "$TMP"/loopbench_*.changes)

start=$SECONDS
lintian "$changes" >"$TMP/lintian.out" 2>&1 || true
check "lintian: no error, no warning ($((SECONDS - start)) s)" bash -c "! grep -E '^[EW]: ' '$TMP/lintian.out'"

# The package's paths, and which of them existed before it (/usr, /usr/bin...).
dpkg-deb -c "$deb" | awk '{ print substr($6, 2) }' | sed 's|/$||; /^$/d' >"$TMP/paths"
while read -r p; do [ -e "$p" ] && echo "$p"; done <"$TMP/paths" >"$TMP/before"

installed=0
purge() { [ "$installed" -eq 0 ] || dpkg --purge loopbench >>"$TMP/dpkg.log" 2>&1 || true; installed=0; }
trap 'purge; cleanup' EXIT
rc=0
installed=1
start=$SECONDS
dpkg -i "$deb" >"$TMP/dpkg.log" 2>&1 || rc=$?
check "dpkg -i installs it ($((SECONDS - start)) s)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || { cat "$TMP/dpkg.log"; exit 1; }
dpkg -L loopbench >"$TMP/dpkg-L"
echo "dpkg -L loopbench:" && sed 's/^/  /' "$TMP/dpkg-L"
for f in /usr/bin/loopbench /usr/bin/refshard /usr/share/loopbench/profiles/refshard.json \
    /usr/share/loopbench/profiles/refshard.config.json /usr/share/loopbench/profiles/haproxy.cfg \
    /usr/share/man/man1/loopbench.1.gz /usr/share/man/man1/refshard.1.gz \
    /usr/share/bash-completion/completions/loopbench /usr/share/doc/loopbench/copyright; do
  check "  ... dpkg -L loopbench lists $f, in place" bash -c "grep -qx '$f' '$TMP/dpkg-L' && [ -f '$f' ]"
done

chmod 755 "$TMP"
mkdir -p "$TMP/home" "$TMP/cwd"
chown "$NOBODY:$NOBODY" "$TMP/home" "$TMP/cwd"
rc=0
(cd "$TMP/cwd" && as_nobody env -u XDG_STATE_HOME HOME="$TMP/home" /usr/bin/loopbench run -w 0.5 -t 1 -n 1 -q) \
  >"$TMP/run.out" 2>"$TMP/run.err" || rc=$?
check "the installed 'loopbench run', no argument, as uid $NOBODY: exit 0" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || cat "$TMP/run.err"
results=$(ls -d "$TMP"/cwd/results/refshard-*/results.json 2>/dev/null | head -1)
check "  ... the built-in campaign from a copy of the installed profile, each run ok" \
  jq -e --arg p "$TMP/home/.local/state/loopbench/refshard.json" \
    '.profile.path == $p and [.runs[].setting] == ["0", "2"] and all(.runs[]; .status == "ok")' \
    "${results:-/dev/null}" >/dev/null

rc=0
dpkg --purge loopbench >>"$TMP/dpkg.log" 2>&1 || rc=$?
installed=0
check "dpkg --purge removes it" [ "$rc" -eq 0 ]
left=$(while read -r p; do
  if [ -e "$p" ] && ! grep -qxF "$p" "$TMP/before"; then echo "$p"; fi
done <"$TMP/paths")
check "  ... leaving none of its files or directories${left:+: $left}" [ -z "$left" ]

[ "$fails" -eq 0 ]
