#!/bin/sh
# libkinetoscope_inject.so inside a live session (kinetoscope record, the same code as Run > Launch):
# the library finds KINETOSCOPE_ENDPOINT, opens its own connection and streams what it records
# while the target runs, no GPU needed:
#  - NVTX ranges of an unmodified C program (capture cuda sets NVTX_INJECTION64_PATH);
#  - Level Zero kernels and copies of an unmodified program, through the real loader and our fake
#    driver (capture xpu preloads the library and enables the tracing layer): device activity is
#    drained while the program runs and lands on GPU rows, joined to its launches.
set -eu
: "${KS_BIN:?}" "${KS_BINARY_DIR:?}"
. "$(dirname "$0")/common.sh"
bin="$KS_BINARY_DIR/tests"


if [ -x "$bin/ks_nvtx_client" ]; then
    "$KS_BIN" record --quiet --capture cpu,cuda -o "$work/nvtx.json" -- "$bin/ks_nvtx_client" \
        >"$work/nvtx.out" 2>&1 || fail "record nvtx client: $(cat "$work/nvtx.out")"
    check_trace "$work/nvtx.json" '
for n in ("outer", "inner", "worker step", "async load", "registered range"):
    assert names.count(n) == 1, (n, names)
o = next(e for e in x if e["name"] == "outer")
i = next(e for e in x if e["name"] == "inner")
assert o["ts"] <= i["ts"] and i["ts"] + i["dur"] <= o["ts"] + o["dur"], "inner not inside outer"
assert o["pid"] == i["pid"]
'
else
    echo "built without NVTX headers: NVTX part skipped"
fi

fake="$bin/libks_zefake.so"
if [ -x "$bin/ks_ze_client" ] && [ -f "$fake" ]; then
    "$KS_BIN" record --capture cpu,xpu --env "ZE_ENABLE_ALT_DRIVERS=$fake" -o "$work/ze.json" \
        -- "$bin/ks_ze_client" 7 >"$work/ze.out" 2>&1 || fail "record ze client: $(cat "$work/ze.out")"
    grep -q "launched 7 kernels" "$work/ze.out" || fail "target output not forwarded: $(cat "$work/ze.out")"
    check_trace "$work/ze.json" '
k = [e for e in x if e.get("cat") == "kernel"]
assert len(k) == 7, [e["name"] for e in k]
assert all(e["name"] == "spin_200us" and abs(e["dur"] - 200) < 1 for e in k), k[:2]
cpu_pid = next(e["pid"] for e in x if e.get("cat") == "xpu_runtime")
assert all(e["pid"] != cpu_pid for e in k), "kernels on the CPU process"
launches = [e for e in x if e.get("cat") == "xpu_runtime" and "Launch" in e["name"]]
assert len(launches) == 7, [e["name"] for e in x if e.get("cat") == "xpu_runtime"]
corr = {e["args"]["correlation"] for e in launches}
assert {e["args"]["correlation"] for e in k} == corr
copies = [e for e in x if e.get("cat") == "gpu_memcpy"]
assert len(copies) == 1 and copies[0]["args"]["bytes"] == 4096, copies
'
else
    echo "built without Level Zero: XPU part skipped"
fi
echo "live injection OK"
