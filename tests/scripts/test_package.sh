#!/bin/sh
# Builds the .deb with CPack, unpacks it into a scratch root (dpkg -x, no root needed), checks its
# files and declared dependencies, runs the installed binary headless on the bundled sample, and
# validates the desktop entry, MIME file and AppStream metainfo.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}"
. "$(dirname "$0")/common.sh"

cd "$KS_BINARY_DIR"
# A sanitizer build's ctest preloads the ASan runtime into every program a script test starts
# (tests/CMakeLists.txt). The packaging and validation tools are not ours and some hang with it
# (CPack in a futex at "Generating dependency list", appstreamcli validate), so here it is kept only
# for the commands that load our instrumented libraries into an uninstrumented python3: preloaded.
preload=""
if [ "${KS_SANITIZE:-0}" = 1 ]; then
    preload="${LD_PRELOAD:-}"
    unset LD_PRELOAD
fi
preloaded() {
    if [ -n "$preload" ]; then
        LD_PRELOAD="$preload" "$@"
    else
        "$@"
    fi
}
cpack -G DEB -B "$work/pkg" >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack failed"; }
deb="$(ls "$work"/pkg/kinetoscope_*.deb)"
[ -f "$deb" ] || fail "no .deb produced"

root="$work/root"
dpkg-deb -x "$deb" "$root"
for f in usr/bin/kinetoscope \
         usr/share/applications/io.github.kinetoscope.Kinetoscope.desktop \
         usr/share/metainfo/io.github.kinetoscope.Kinetoscope.metainfo.xml \
         usr/share/mime/packages/kinetoscope.xml \
         usr/share/icons/hicolor/scalable/apps/kinetoscope.svg \
         usr/share/man/man1/kinetoscope.1.gz \
         usr/share/doc/kinetoscope/copyright \
         usr/share/kinetoscope/samples/sample.pt.trace.json.gz; do
    [ -e "$root/$f" ] || fail "package lacks /$f"
done
# The PNG icons are rendered by the GUI build (resources/CMakeLists.txt); a -DKINETOSCOPE_GUI=OFF
# package (the no-gui and sanitizer builds) has the SVG only.
if grep -q "^KINETOSCOPE_GUI:BOOL=ON" "$KS_BINARY_DIR/CMakeCache.txt"; then
    for s in 48 256; do
        [ -e "$root/usr/share/icons/hicolor/${s}x$s/apps/kinetoscope.png" ] || fail "package lacks the ${s}px icon"
    done
    file "$root/usr/share/icons/hicolor/48x48/apps/kinetoscope.png" | grep -q "48 x 48" || fail "48px icon has the wrong size"
fi

depends="$(dpkg-deb -f "$deb" Depends)"
echo "Depends: $depends"
for d in libze1 libsimdjson zlib1g libstdc++6; do
    echo "$depends" | grep -q "$d" || fail "Depends lacks $d"
done
echo "$depends" | grep -q "libtorch" && fail "the viewer's package depends on libtorch: $depends"
# The torch observer, when built, in a package of its own that brings libtorch.
torchdeb="$(ls "$work"/pkg/kinetoscope-torch_*.deb 2>/dev/null || true)"
if [ -f "$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so" ]; then
    [ -f "$torchdeb" ] || fail "no kinetoscope-torch package"
    tdepends="$(dpkg-deb -f "$torchdeb" Depends)"
    echo "kinetoscope-torch Depends: $tdepends"
    echo "$tdepends" | grep -q "libtorch" || fail "kinetoscope-torch does not depend on libtorch"
    echo "$tdepends" | grep -q "kinetoscope (=" || fail "kinetoscope-torch does not depend on kinetoscope"
    dpkg-deb -x "$torchdeb" "$root"
    [ -n "$(find "$root/usr/lib" -name libkinetoscope_torch.json)" ] || fail "kinetoscope-torch lacks the library's sidecar"
fi
# The observer's sources, for builds against another torch on first use, come with the viewer's
# package (a pip torch needs no kinetoscope-torch, which would bring Debian's libtorch).
for f in observer.cpp entrypoints.cpp shadowstack.h kinetoscope.h; do
    dpkg-deb -c "$deb" | grep -q "/usr/share/kinetoscope/torch-observer/$f\$" || fail "package lacks torch-observer/$f"
done
if grep -q "KINETOSCOPE_GUI:BOOL=ON" CMakeCache.txt; then
    echo "$depends" | grep -q "libqt6widgets6" || fail "Depends lacks the Qt 6 Widgets library"
fi

bin="$root/usr/bin/kinetoscope"
"$bin" --version | grep -q "^kinetoscope [0-9]" || fail "--version"
"$bin" --help | grep -q "Usage: kinetoscope" || fail "--help"
gzip -dc "$root/usr/share/man/man1/kinetoscope.1.gz" | grep -q "^.SH NAME" || fail "man page"
# The installed binary must find the installed sample (not the source tree) when run from the root.
sample="$root/usr/share/kinetoscope/samples/sample.pt.trace.json.gz"
"$bin" info "$sample" | grep -q "^events: 18221 " || fail "installed binary could not read the sample"

# Recording pieces in their installed places, found by the installed binary (not the build tree):
# an unmodified torch script recorded with `kinetoscope record` yields its steps.
for lib in libkinetoscope.so.1 libkinetoscope_inject.so; do
    [ -n "$(find "$root/usr/lib" -name "$lib")" ] || fail "package lacks $lib"
done
for f in usr/share/kinetoscope/python/bootstrap/sitecustomize.py usr/share/kinetoscope/python/kinetoscope/__init__.py; do
    [ -e "$root/$f" ] || fail "package lacks /$f"
done
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
    (cd "$work" && preloaded env -u KINETOSCOPE_LIB "$bin" record --quiet -o "$work/rec.json" -- \
        /usr/bin/python3 "$KS_SOURCE_DIR/tests/data/live/train_mlp.py" 4 >"$work/rec.log" 2>&1) ||
        { cat "$work/rec.log"; fail "installed record"; }
    /usr/bin/python3 -c "
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
steps = [e['name'] for e in ev if e.get('ph') == 'X' and e['name'].startswith('ProfilerStep#')]
assert len(steps) == 4, steps
" "$work/rec.json" || fail "installed record: wrong steps"
    if [ -f "$torchdeb" ]; then
        # The installed bootstrap finds the installed observer next to the installed library.
        grep -q '"aten::addmm"' "$work/rec.json" || { cat "$work/rec.log"; fail "installed record: no aten ops"; }
        grep -q "aten ops recorded by $root/usr/lib" "$work/rec.log" || { cat "$work/rec.log"; fail "installed record: not the installed observer"; }
    fi
    grep -q "libkinetoscope.so.1 was not found\|bootstrap (sitecustomize.py) was not found" "$work/rec.log" &&
        fail "installed record used no installed library or bootstrap"
    # The installed sources build the observer on first use (as for a pip torch) and it records ops.
    preloaded env -u KINETOSCOPE_LIB -u KINETOSCOPE_TORCH_LIB KINETOSCOPE_TORCH_BUILD=force KINETOSCOPE_CACHE_DIR="$work/cache" \
        PYTHONPATH="$root/usr/share/kinetoscope/python" /usr/bin/python3 -c "
import sys, torch, kinetoscope
from kinetoscope import torchobserver
with kinetoscope.profile() as prof:
    torch.nn.Linear(4, 2)(torch.randn(3, 4))
assert torchobserver.path and torchobserver.path.startswith(sys.argv[1]), (torchobserver.path, torchobserver.load_error())
assert kinetoscope._lib.path.startswith(sys.argv[2]), kinetoscope._lib.path
assert 'aten::addmm' in {e.name for e in prof.events()}
" "$work/cache/" "$root/usr/lib" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "installed sources: first-use build"; }
    cat "$work/build.log"
else
    echo "python3-torch missing: installed record not tried"
fi

desktop-file-validate "$root/usr/share/applications/io.github.kinetoscope.Kinetoscope.desktop" || fail "desktop entry"
appstreamcli validate --no-net "$root/usr/share/metainfo/io.github.kinetoscope.Kinetoscope.metainfo.xml" || fail "metainfo"
xmllint --noout "$root/usr/share/mime/packages/kinetoscope.xml" 2>/dev/null || python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$root/usr/share/mime/packages/kinetoscope.xml" || fail "MIME XML"
echo "package OK: $deb"
