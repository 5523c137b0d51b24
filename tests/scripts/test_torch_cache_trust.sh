#!/bin/sh
# The torch observer's build cache is trusted only when nobody else can write to it (issue 31 item
# 9; resources/python/kinetoscope/torchbuild.py, unsafe_path). A planted libkinetoscope_torch.so
# with a sidecar that matches the running torch, whose constructor leaves a mark when it is loaded,
# is put in caches that someone else could have written to: a cache directory writable by its
# group or by everyone, the torch version's directory writable by others, a directory above the
# cache writable by others and not sticky, the library or its sidecar writable by others, and
# (as root) a cache directory that belongs to another user. Each is refused with one line on
# stderr and the library is never loaded. The same library in a cache only this user can write
# to (under a sticky, world-writable directory, as /tmp) is loaded: the mark shows the planted
# library would run if the checks let it.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
cd "$work"
# Made with the modes each case sets, not the caller's umask.
umask 022

# The planted library: only a constructor, as a hostile one needs. Built without the sanitizer
# runtimes a sanitizer build's ctest preloads into the tests (cc is not instrumented).
cat >planted.c <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void)
{
    const char* mark = getenv("KS_PLANTED_MARK");
    if (!mark) return;
    int fd = open(mark, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return;
    (void)!write(fd, "loaded\n", 7);
    close(fd);
}
C
env -u LD_PRELOAD cc -shared -fPIC -o planted.so planted.c || fail "cannot build the planted library"

# plant ROOT: ROOT as a cache (KINETOSCOPE_CACHE_DIR) holding the planted library with a sidecar
# made for the running torch and this checkout's observer sources (what a real build writes).
# Prints the version's directory.
plant() {
    mkdir -p "$1"
    chmod 700 "$1"
    KINETOSCOPE_CACHE_DIR="$1" KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" \
        PYTHONPATH="$KS_SOURCE_DIR/resources/python" "$PY" - "$work/planted.so" <<'PY'
import json, os, shutil, sys
import torch
from kinetoscope import torchbuild as tb
running = tb.running_torch()
d = tb.cache_dir(running, tb.KSTORCH_ABI)
os.makedirs(d, exist_ok=True)
os.chmod(d, 0o700)
lib = os.path.join(d, tb.LIBRARY)
shutil.copyfile(sys.argv[1], lib)
os.chmod(lib, 0o755)
src = tb.sources()
side = {"torch_version": running["torch_version"], "cxx11_abi": running["cxx11_abi"],
        "kstorch_abi": tb.KSTORCH_ABI, "sources": tb._sources_digest(src) if src else None}
with open(os.path.join(d, tb.SIDECAR), "w") as f:
    json.dump(side, f)
os.chmod(os.path.join(d, tb.SIDECAR), 0o644)
print(d)
PY
}

cat >load.py <<'PY'
import json, sys
import torch
import kinetoscope
from kinetoscope import torchobserver
torchobserver.load()
json.dump({"path": torchobserver.path, "error": torchobserver.load_error()}, open(sys.argv[1], "w"))
PY
# try_load NAME [VAR=VALUE...]: load.py with the prebuilt library skipped (KINETOSCOPE_TORCH_BUILD=
# force: only the cache can supply a library) and no compiler, so nothing is built; stderr in
# NAME.err, the result in NAME.json, the planted library's mark in NAME.mark.
try_load() {
    name="$1"
    shift
    rm -f "$name.mark"
    env -u KINETOSCOPE_TORCH_LIB -u KINETOSCOPE_CACHE_DIR -u XDG_CACHE_HOME \
        KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" \
        PYTHONPATH="$KS_SOURCE_DIR/resources/python" KINETOSCOPE_TORCH_BUILD=force CXX="$work/no-such-c++" \
        KS_PLANTED_MARK="$work/$name.mark" "$@" \
        "$PY" load.py "$name.json" 2>"$name.err" || { cat "$name.err"; fail "$name: the script failed"; }
}
# refused NAME PATTERN: one line on stderr matching PATTERN, nothing loaded.
refused() {
    cat "$1.err"
    [ ! -e "$1.mark" ] || fail "$1: the planted library was loaded"
    [ "$(wc -l <"$1.err")" = 1 ] || fail "$1: stderr is not one line"
    grep -q "$2" "$1.err" || fail "$1: the line does not say '$2'"
    "$PY" -c "import json, sys; r = json.load(open(sys.argv[1])); assert r['path'] is None and 'unsafe' in r['error'], r" \
        "$1.json" || fail "$1: load_error() does not say why"
}

# The control: a cache only this user can write to, under a sticky world-writable directory (as
# /tmp): the planted library is taken from it and loaded (its mark), then refused for lacking the
# observer's entry points.
mkdir -m 1777 sticky
plant "$work/sticky/cache" >/dev/null
try_load trusted KINETOSCOPE_CACHE_DIR="$work/sticky/cache"
cat trusted.err
[ -s trusted.mark ] || fail "trusted: the library in a safe cache was not loaded (the test would prove nothing)"
"$PY" -c "import json, sys; r = json.load(open(sys.argv[1])); assert r['path'] is None and 'kstorch_abi_version' in r['error'], r" \
    trusted.json || fail "trusted: a library without the observer's entry points is not refused with a reason"

# The cache directory writable by everyone, or by its group.
for mode in 777 770; do
    plant "$work/open$mode" >/dev/null
    chmod "$mode" "$work/open$mode"
    try_load "open$mode" KINETOSCOPE_CACHE_DIR="$work/open$mode"
    refused "open$mode" "unsafe cache directory: $work/open$mode is writable by others"
done

# The torch version's directory writable by others.
version_dir="$(plant "$work/vdir")"
chmod 757 "$version_dir"
try_load vdir KINETOSCOPE_CACHE_DIR="$work/vdir"
refused vdir "unsafe cache directory: $version_dir is writable by others (mode 757)"

# A directory above the cache that others can write to and that is not sticky (they could rename
# the cache away and put their own in its place).
mkdir -m 777 parent
plant "$work/parent/cache" >/dev/null
chmod 777 "$work/parent"
try_load parent KINETOSCOPE_CACHE_DIR="$work/parent/cache"
refused parent "unsafe cache directory: $work/parent is writable by others and not sticky (mode 777)"

# The library, or its sidecar, writable by others in an otherwise safe cache.
for f in libkinetoscope_torch.so libkinetoscope_torch.json; do
    d="$(plant "$work/file-$f")"
    chmod o+w,g+w "$d/$f"
    try_load "file-$f" KINETOSCOPE_CACHE_DIR="$work/file-$f"
    refused "file-$f" "unsafe cached library: $d/$f is writable by others"
done

# Another user's cache (the issue's report: XDG_CACHE_HOME on a world-writable directory, the
# kinetoscope directory in it made by someone else). Needs root to give the directory away.
if [ "$(id -u)" = 0 ] && nobody="$(id -u nobody 2>/dev/null)"; then
    mkdir -m 1777 xdg
    plant "$work/xdg/kinetoscope" >/dev/null
    chown -R nobody "$work/xdg/kinetoscope"
    try_load foreign XDG_CACHE_HOME="$work/xdg"
    refused foreign "unsafe cache directory: .*/xdg/kinetoscope.* belongs to uid $nobody"
else
    echo "not root: the other user's cache is not tried"
fi
echo "ok: the planted library is loaded from a safe cache and refused with one line from each unsafe one"
