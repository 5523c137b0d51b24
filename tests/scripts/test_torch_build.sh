#!/bin/sh
# The torch observer matched to the running torch (resources/python/kinetoscope/torchbuild.py):
# the prebuilt library with its own sidecar is loaded as is; a sidecar naming another torch makes
# the loader skip it and build the observer on first use into the cache, which records ops; later
# processes reuse the cached build (also under KINETOSCOPE_TORCH_BUILD=force, and the live bootstrap
# of `kinetoscope record`); with no compiler,
# one line on stderr and the script runs to its end unprofiled at op level. One real build.
# Runs under torch 1.13 and torch 2.x (need_torch_observer); skips only when the torch cannot be had.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
prebuilt="$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so"
[ -f "$KS_BINARY_DIR/core/torch/libkinetoscope_torch.json" ] || fail "the prebuilt library has no sidecar"
cd "$work"

cat >tiny.py <<'PY'
import json, sys
import torch
import kinetoscope
from kinetoscope import torchobserver

model = torch.nn.Linear(4, 2)
with kinetoscope.profile() as prof:
    with kinetoscope.record_function("tiny_step"):
        model(torch.randn(3, 4)).sum().backward()
names = {e.name for e in prof.events()}
json.dump({"path": torchobserver.path, "error": torchobserver.load_error(),
           "addmm": "aten::addmm" in names, "step": "tiny_step" in names}, open(sys.argv[1], "w"))
PY
# run NAME [VAR=VALUE...]: tiny.py with the build tree's library and the package of the source
# tree, stderr in NAME.err, its result in NAME.json.
run() {
    name="$1"
    shift
    env -u KINETOSCOPE_TORCH_LIB -u KINETOSCOPE_TORCH_BUILD -u KINETOSCOPE_CACHE_DIR -u CXX \
        KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" \
        PYTHONPATH="$KS_SOURCE_DIR/resources/python" "$@" \
        "$PY" tiny.py "$name.json" 2>"$name.err" || { cat "$name.err"; fail "$name: the script failed"; }
}
# result NAME EXPR: EXPR (Python) over r, NAME's result.
result() {
    "$PY" -c "import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1.json" ||
        { cat "$1.json" "$1.err"; fail "$1: $2"; }
}
building="building the torch observer for torch"

if [ "$TORCH_MAJOR" = 1 ]; then
    # The prebuilt library, its sidecar matching Debian's torch: loaded without a build.
    run prebuilt KINETOSCOPE_CACHE_DIR="$work/cache0"
    result prebuilt "r['path'] == '$prebuilt' and r['addmm']"
    grep -q "$building" prebuilt.err && fail "prebuilt: built although its sidecar matches"
    [ -e "$work/cache0" ] && fail "prebuilt: the cache was touched"
else
    # Under torch 2.x the prebuilt library (built against Debian 12's torch 1.13) is never loaded:
    # its sidecar names another torch. With builds turned off nothing is recorded, and load_error
    # says why.
    run prebuilt KINETOSCOPE_CACHE_DIR="$work/cache0" KINETOSCOPE_TORCH_BUILD=never
    result prebuilt "r['path'] is None and not r['addmm'] and r['step'] and 'KINETOSCOPE_TORCH_BUILD=never' in r['error']"
fi

# A copy whose sidecar claims another torch: skipped (never loaded) and built for this torch, once.
mkdir pre
cp "$prebuilt" pre/
"$PY" -c "
import json, sys
d = json.load(open(sys.argv[1]))
d['torch_version'] = '9.9.0'
json.dump(d, open(sys.argv[2], 'w'))
" "$KS_BINARY_DIR/core/torch/libkinetoscope_torch.json" pre/libkinetoscope_torch.json
# Two processes at once: one builds, the other waits on the cache's lock and takes its build.
run first KINETOSCOPE_TORCH_LIB="$work/pre/libkinetoscope_torch.so" KINETOSCOPE_CACHE_DIR="$work/cache" &
first=$!
run twin KINETOSCOPE_TORCH_LIB="$work/pre/libkinetoscope_torch.so" KINETOSCOPE_CACHE_DIR="$work/cache" &
twin=$!
wait $first || fail "first process"
wait $twin || fail "twin process"
cat first.err twin.err
[ "$(cat first.err twin.err | grep -c "$building")" = 1 ] || fail "first: not exactly one 'building' line from two processes"
built="$(ls "$work"/cache/torch-*-cxx11abi[01]-abi3/libkinetoscope_torch.so)"
[ -f "$built" ] || fail "first: nothing built in the cache"
[ -f "$(dirname "$built")/libkinetoscope_torch.json" ] || fail "first: the cached build has no sidecar"
[ -s "$(dirname "$built")/build.log" ] || fail "first: no build log"
result first "r['path'] == '$built' and r['addmm'] and r['error'] is None"
result twin "r['path'] == '$built' and r['addmm'] and r['error'] is None"
stamp="$(stat -c %Y.%i "$built")"
# The cached library links this torch's libraries and the recorder the process loaded.
readelf -d "$built" | grep -q "libkinetoscope.so.1" || fail "the cached build does not link libkinetoscope.so.1"

# A second process reuses the cached build; so does a forced first-use path.
run second KINETOSCOPE_TORCH_LIB="$work/pre/libkinetoscope_torch.so" KINETOSCOPE_CACHE_DIR="$work/cache"
grep -q "$building" second.err && fail "second: built again"
result second "r['path'] == '$built' and r['addmm']"
run forced KINETOSCOPE_TORCH_BUILD=force KINETOSCOPE_CACHE_DIR="$work/cache"
grep -q "$building" forced.err && fail "forced: built again with a cached build present"
result forced "r['path'] == '$built' and r['addmm']"
# The live bootstrap (kinetoscope record) applies the same rules: it skips the mismatched library and
# takes the cached build.
KINETOSCOPE_TORCH_LIB="$work/pre/libkinetoscope_torch.so" KINETOSCOPE_CACHE_DIR="$work/cache" \
    "$KS_BIN" record -o live.json -- "$PY" "$KS_SOURCE_DIR/tests/data/live/train_mlp.py" 2 >live.out 2>live.err ||
    { cat live.err; fail "record"; }
grep -q "aten ops recorded by $built" live.err || { cat live.err; fail "record: the cached build was not used"; }
grep -q '"aten::addmm"' live.json || fail "record: no aten ops"
[ "$(stat -c %Y.%i "$built")" = "$stamp" ] || fail "the cached library was rewritten"

# A cache someone else can write to is never used (issue 31): a planted library with a matching
# sidecar, in a cache directory that belongs to another user, is refused with one line and not
# loaded. Needs root to give the directory away.
if [ "$(id -u)" = 0 ]; then
    mkdir -m 1777 shared-cache
    cp -r cache shared-cache/kinetoscope
    chown -R nobody shared-cache/kinetoscope
    run planted KINETOSCOPE_TORCH_LIB="$work/pre/libkinetoscope_torch.so" XDG_CACHE_HOME="$work/shared-cache"
    cat planted.err
    [ "$(wc -l <planted.err)" = 1 ] || fail "planted: stderr is not one line"
    grep -q "unsafe cache directory: .*shared-cache/kinetoscope.* belongs to uid" planted.err ||
        fail "planted: the line does not say why"
    result planted "r['path'] is None and not r['addmm'] and r['step']"
    # A cache directory others can write to, though it is this user's, is refused the same way.
    cp -r cache open-cache
    chmod 777 open-cache
    run opencache KINETOSCOPE_TORCH_LIB="$work/pre/libkinetoscope_torch.so" KINETOSCOPE_CACHE_DIR="$work/open-cache"
    grep -q "unsafe cache directory: .*open-cache is writable by others" opencache.err || fail "open cache: not refused"
    result opencache "r['path'] is None and not r['addmm']"
else
    echo "not root: the planted-cache case is not run"
fi

# No compiler: one line naming why, the script runs to its end, load_error() says so.
run nocc KINETOSCOPE_TORCH_BUILD=force KINETOSCOPE_CACHE_DIR="$work/cache2" CXX="$work/no-such-c++"
cat nocc.err
[ "$(wc -l <nocc.err)" = 1 ] || fail "nocc: stderr is not one line"
grep -q "no C++ compiler" nocc.err || fail "nocc: the line does not say why"
result nocc "r['path'] is None and not r['addmm'] and 'no C++ compiler' in r['error'] and r['step']"

# The version rules: libtorch's CMake version, the same build's Python version and local builds.
KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" PYTHONPATH="$KS_SOURCE_DIR/resources/python" \
    "$PY" - <<'PY' || fail "version rules"
from kinetoscope import torchbuild as tb
run = {"torch_version": "2.1.0+cu121", "cxx11_abi": 0, "torch_lib_dir": "/venv/torch/lib"}
side = {"torch_version": "2.1.0", "cxx11_abi": 0, "kstorch_abi": 2, "torch_lib_dir": "/venv/torch/lib"}
# Options go to the library as key=value lines (no JSON parser in a library built on users' machines).
assert tb.options_text({"record_shapes": True, "include": ["aten::"], "stack_prefixes": ["/a/", "/b/"],
                        "shape_sampling": 4}) == b"record_shapes=1\nshape_sampling=4\ninclude=aten::\nstack_prefix=/a/\nstack_prefix=/b/\n"
try:
    tb.options_text({"include": ["a\nb"]})
    raise SystemExit("a prefix with a line break was accepted")
except ValueError:
    pass
assert tb.release("1.13.0") == tb.release("1.13.0a0") == (1, 13, 0)
assert tb.mismatch(side, run, 2) is None
assert "torch 2.2.0" in tb.mismatch(dict(side, torch_version="2.2.0"), run, 2)
assert "ABI" in tb.mismatch(dict(side, cxx11_abi=1), run, 2)
assert "kstorch ABI" in tb.mismatch(side, run, 3)
assert "libtorch" in tb.mismatch(dict(side, torch_lib_dir="/usr/lib/x86_64-linux-gnu"), run, 2)
PY
echo "ok: prebuilt matched, mismatch skipped and built once ($(tail -1 "$(dirname "$built")/build.log")), cache reused, no-compiler fallback"
