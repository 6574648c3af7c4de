#!/usr/bin/env bash
# Cross-build loopbench's third-party C libraries for Windows (x86_64-w64-mingw32)
# from Debian's own source packages, into a prefix given as the first argument.
#
#   bash harness/windows/deps.sh PREFIX [WORKDIR]
#
# - installs the Debian packages the cross build needs (mingw-w64 gcc, wine,
#   autotools) when they are missing (needs root, as on CI);
# - adds deb-src entries mirroring the enabled Debian deb entries when apt has
#   none, so that `apt-get source` works;
# - fetches jansson and check with `apt-get source` and builds each as a static
#   library with a .pc file into PREFIX;
# - writes PREFIX/cross-prefix.ini, a meson cross file holding only the prefix,
#   to be given to meson before harness/windows/x86_64-w64-mingw32.ini:
#     meson setup build-win --cross-file PREFIX/cross-prefix.ini \
#         --cross-file harness/windows/x86_64-w64-mingw32.ini
# Idempotent: a library whose stamp (name and Debian version) is in
# PREFIX/.stamps is skipped. LOOPBENCH_WINDEPS (space-separated, default
# "jansson check") picks the libraries.
set -euo pipefail

HOST=x86_64-w64-mingw32
[ $# -ge 1 ] || { echo "usage: $0 PREFIX [WORKDIR]" >&2; exit 2; }
mkdir -p "$1"
PREFIX=$(cd "$1" && pwd)
WORK=${2:-${TMPDIR:-/tmp}/loopbench-windeps}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
LIBS=${LOOPBENCH_WINDEPS:-jansson check}
JOBS=${JOBS:-$(nproc)}
STAMPS=$PREFIX/.stamps
mkdir -p "$STAMPS"

log() { printf '[windeps] %s\n' "$*" >&2; }

# --- 1. host tools -----------------------------------------------------------
need_pkgs=()
command -v $HOST-gcc >/dev/null || need_pkgs+=(gcc-mingw-w64-x86-64)
command -v $HOST-windres >/dev/null || need_pkgs+=(binutils-mingw-w64-x86-64)
command -v wine >/dev/null || need_pkgs+=(wine wine64)
command -v autoreconf >/dev/null || need_pkgs+=(autoconf)
command -v automake >/dev/null || need_pkgs+=(automake)
command -v libtoolize >/dev/null || need_pkgs+=(libtool)
command -v pkg-config >/dev/null || need_pkgs+=(pkg-config)
command -v dpkg-source >/dev/null || need_pkgs+=(dpkg-dev)
command -v make >/dev/null || need_pkgs+=(make)
if [ ${#need_pkgs[@]} -gt 0 ]; then
    log "installing: ${need_pkgs[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}"
fi

# --- 2. deb-src entries --------------------------------------------------------
have_deb_src() {
    apt-get indextargets --format '$(IDENTIFIER)' 2>/dev/null | grep -qx Sources
}
SRC_LIST=/etc/apt/sources.list.d/loopbench-deb-src.sources
if ! have_deb_src; then
    log "adding deb-src entries: $SRC_LIST"
    tmp=$(mktemp)
    # deb822 files: copy each enabled Debian stanza of Types deb as Types deb-src.
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -e "$f" ] && [ "$f" != "$SRC_LIST" ] || continue
        awk 'BEGIN { RS = ""; ORS = "\n\n" }
             /(^|\n)URIs:[^\n]*debian/ && /(^|\n)Types:[^\n]*deb/ && !/(^|\n)Enabled: *no/ {
                 sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" >>"$tmp"
    done
    # one-line format (sources.list, *.list): deb ... debian ... -> deb-src.
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -e "$f" ] || continue
        grep -E '^deb[[:space:]].*debian' "$f" | sed 's/^deb[[:space:]]/deb-src /' |
            awk '{ printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:", $2, $3;
                   for (i = 4; i <= NF; i++) printf " %s", $i; printf "\n\n" }' >>"$tmp" || true
    done
    # The one-line conversion above ignores [options]; good enough for Debian mirrors.
    if [ ! -s "$tmp" ]; then
        rm -f "$tmp"; echo "no Debian apt source found to mirror as deb-src" >&2; exit 1
    fi
    install -m 0644 "$tmp" "$SRC_LIST"
    rm -f "$tmp"
    apt-get update -qq
elif ! apt-cache showsrc jansson >/dev/null 2>&1; then
    apt-get update -qq
fi

# --- 3. helpers ------------------------------------------------------------------
src_version() { apt-cache showsrc "$1" | awk '/^Version:/ { print $2; exit }'; }

# fetch SRCPKG -> prints the unpacked source directory
fetch() {
    local pkg=$1 ver dir
    ver=$(src_version "$pkg")
    dir="$WORK/$pkg-$ver"
    if [ ! -d "$dir/.unpacked" ]; then
        rm -rf "$dir"; mkdir -p "$dir"
        (cd "$dir" && apt-get source -qq "$pkg=$ver" >/dev/null 2>&1 ||
             { cd "$dir" && apt-get source "$pkg=$ver" >&2; })
        mkdir "$dir/.unpacked"
    fi
    find "$dir" -mindepth 1 -maxdepth 1 -type d ! -name .unpacked | head -n1
}

# A stamp names the Debian version and the revision of this script's recipe, so a
# cached prefix is rebuilt when either changes.
RECIPE=2
stamp_ok() { [ -e "$STAMPS/$1-$(src_version "$1")-r$RECIPE" ]; }
stamp_set() { rm -f "$STAMPS/$1"-*; touch "$STAMPS/$1-$(src_version "$1")-r$RECIPE"; }

cross_env=("CC=$HOST-gcc" "AR=$HOST-ar" "RANLIB=$HOST-ranlib" "STRIP=$HOST-strip"
           "WINDRES=$HOST-windres" "RC=$HOST-windres"
           PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig" PKG_CONFIG_PATH=)

timed() {   # timed NAME CMD... : runs CMD, logs wall time
    local name=$1 t0 t1; shift
    t0=$(date +%s)
    "$@" || return 1
    t1=$(date +%s)
    log "$name built in $((t1 - t0)) s"
    echo "$name $((t1 - t0))" >>"$STAMPS/timings"
}

# --- 4. libraries -------------------------------------------------------------------
# cross_configure PKG [VAR=VALUE...] -- [ARG...]: fetch PKG's source, configure it in a
# fresh _win directory for the host (static only, into PREFIX), and print that directory.
cross_configure() {
    local pkg=$1 src vars=()
    shift
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    src=$(fetch "$pkg")
    rm -rf "$src/_win"; mkdir "$src/_win"
    [ -x "$src/configure" ] || (cd "$src" && autoreconf -fi >autoreconf.log 2>&1)
    (cd "$src/_win" &&
        env "${cross_env[@]}" "${vars[@]}" ../configure --host=$HOST --prefix="$PREFIX" \
            --enable-static --disable-shared "$@" >configure.log 2>&1) || return 1
    echo "$src/_win"
}

build_jansson() {
    local dir; dir=$(cross_configure jansson --) || return 1
    (cd "$dir" && make -j"$JOBS" >make.log 2>&1 && make install >install.log 2>&1)
}

build_check() {
    # Only the library (lib/, src/) and check.pc: the docs need texinfo and the
    # self-tests are not needed. Fork mode does not exist on Windows: check's
    # configure detects that and builds the no-fork variant. LIBS: mingw's
    # clock_gettime is in winpthreads; unseen, check compiles a replacement that
    # returns 0, which then stands in for the real one in every test program.
    local dir; dir=$(cross_configure check LIBS=-lpthread -- --disable-subunit \
        --disable-build-docs --disable-timeout-tests) || return 1
    (cd "$dir" &&
        make -j"$JOBS" -C lib >make.log 2>&1 && make -j"$JOBS" -C src >>make.log 2>&1 &&
        make -C lib install >install.log 2>&1 && make -C src install >>install.log 2>&1 &&
        make install-pcdataDATA install-includeHEADERS >>install.log 2>&1) || return 1
    # Debian's check.pc.in names the library check_pic (Debian ships a PIC
    # archive under that name); this build installs plain libcheck.a.
    sed -i 's/-lcheck_pic/-lcheck/' "$PREFIX/lib/pkgconfig/check.pc"
}

for lib in $LIBS; do
    if stamp_ok "$lib"; then
        log "$lib $(src_version "$lib"): already built, skipping"
        continue
    fi
    log "building $lib $(src_version "$lib") into $PREFIX (logs: $WORK/$lib-*/*/_win/*.log)"
    if ! timed "$lib" "build_$lib"; then
        for f in "$WORK/$lib"-*/*/autoreconf.log "$WORK/$lib"-*/*/_win/{configure,make,install}.log; do
            [ -e "$f" ] && { echo "--- tail of $f" >&2; tail -n 30 "$f" >&2; }
        done
        echo "building $lib failed" >&2
        exit 1
    fi
    stamp_set "$lib"
done

# --- 5. the prefix half of the meson cross file ----------------------------------
cat >"$PREFIX/cross-prefix.ini" <<EOF
# Generated by harness/windows/deps.sh; give it to meson before
# harness/windows/x86_64-w64-mingw32.ini.
[constants]
winprefix = '$PREFIX'
EOF
log "done; cross file constants: $PREFIX/cross-prefix.ini"
