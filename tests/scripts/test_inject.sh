#!/bin/sh
# libkinetoscope_inject.so in real processes, no GPU needed:
#  - NVTX: a C program's nvtx* calls (NVTX_INJECTION64_PATH) become ranges and marks in the trace
#    written at exit to KINETOSCOPE_OUTPUT;
#  - ITT: the collector hooks, driven the way the ITT static part does (INTEL_LIBITTNOTIFY64);
#  - CUDA/Level Zero absent: InitializeInjection called by hand and LD_PRELOAD into a plain
#    program never crash, return success and say in one line each why GPU collection is off;
#  - the library exports only its entry points and keeps its TLS small enough for dlopen.
set -eu
: "${KS_BINARY_DIR:?}"
. "$(dirname "$0")/common.sh"
lib="$KS_BINARY_DIR/core/inject/libkinetoscope_inject.so"
bin="$KS_BINARY_DIR/tests"
[ -f "$lib" ] || fail "libkinetoscope_inject.so not built"

tls="$(readelf -lW "$lib" | awk '$1 == "TLS" { print $6 }')"
[ -z "$tls" ] || [ $((tls)) -le 512 ] || fail "libkinetoscope_inject.so has $((tls)) bytes of TLS (keep it under 512)"
exported="$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBVWRui]$/ { print $3 }' | grep -v -E '^(InitializeInjection|InitializeInjectionNvtx2|__itt_[a-z_]+|_init|_fini)$' || true)"
[ -z "$exported" ] || fail "unexpected exported symbols: $exported"


# NVTX
if [ -x "$bin/ks_nvtx_client" ]; then
    NVTX_INJECTION64_PATH="$lib" KINETOSCOPE_OUTPUT="$work/nvtx.pt.trace.json" KINETOSCOPE_ACTIVITIES=cpu \
        "$bin/ks_nvtx_client" 2>"$work/nvtx.err" || fail "nvtx client: $(cat "$work/nvtx.err")"
    [ -f "$work/nvtx.pt.trace.json" ] || fail "no trace from the NVTX run: $(cat "$work/nvtx.err")"
    check_trace "$work/nvtx.pt.trace.json" '
for n in ("outer", "inner", "worker step", "async load", "registered range"):
    assert names.count(n) == 1, (n, names)
assert marks.count("checkpoint") == 1, marks
o = next(e for e in x if e["name"] == "outer")
i = next(e for e in x if e["name"] == "inner")
assert o["ts"] <= i["ts"] and i["ts"] + i["dur"] <= o["ts"] + o["dur"], "inner not inside outer"
assert o["tid"] == i["tid"] and o["cat"] == "user_annotation"
w = next(e for e in x if e["name"] == "worker step")
assert w["tid"] != o["tid"], "worker range on the main thread"
a = next(e for e in x if e["name"] == "async load")
assert a["dur"] >= w["dur"], "start/end range shorter than the work it spans"
'
else
    echo "built without NVTX headers: NVTX part skipped"
fi

# ITT
INTEL_LIBITTNOTIFY64="$lib" KINETOSCOPE_OUTPUT="$work/itt.json" KINETOSCOPE_ACTIVITIES=cpu \
    "$bin/ks_itt_client" 2>"$work/itt.err" || fail "itt client ($?): $(cat "$work/itt.err")"
check_trace "$work/itt.json" '
assert names.count("itt step") == 1 and names.count("aten::mm") == 1, names
s = next(e for e in x if e["name"] == "itt step")
m = next(e for e in x if e["name"] == "aten::mm")
assert s["ts"] <= m["ts"] and m["ts"] + m["dur"] <= s["ts"] + s["dur"]
assert "itt marker" in marks and "itt mark" in marks, marks
'

# CUDA entry point with no driver: called by hand, as cuInit would.
KINETOSCOPE_OUTPUT="$work/probe-%p.json" KINETOSCOPE_ACTIVITIES=cpu,cuda \
    "$bin/ks_inject_probe" "$lib" 2>"$work/probe.err" || fail "InitializeInjection ($?): $(cat "$work/probe.err")"
cat "$work/probe.err"
probe="$(ls "$work"/probe-*.json 2>/dev/null | head -n 1)"
[ -n "$probe" ] || fail "no trace from the probe (%p not expanded?)"
if [ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ] && ! ldconfig -p | grep -q 'libcuda\.so\.1 '; then
    [ "$(grep -c '^kinetoscope: CUDA: not available: ' "$work/probe.err")" = 1 ] ||
        fail "expected one CUDA status line: $(cat "$work/probe.err")"
    check_trace "$probe" '
st = doc["kinetoscope_status"]
assert sum(1 for s in st if s.startswith("CUDA: not available")) == 1, st
'
fi

# LD_PRELOAD into a program that never touches a GPU: Level Zero is tried, and fails politely.
# After what the environment preloads already (a sanitizer build's runtimes must come first).
LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$lib" KINETOSCOPE_OUTPUT="$work/preload.json" /bin/true 2>"$work/preload.err" ||
    fail "LD_PRELOAD run failed: $(cat "$work/preload.err")"
cat "$work/preload.err"
[ -f "$work/preload.json" ] || fail "no trace from the LD_PRELOAD run"
if grep -q "Level Zero" "$work/preload.err" || grep -q "^kinetoscope: XPU" "$work/preload.err"; then
    [ "$(grep -c '^kinetoscope: XPU: ' "$work/preload.err")" = 1 ] || fail "expected one XPU line"
fi
echo "injection library OK"
