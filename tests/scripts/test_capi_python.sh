#!/bin/sh
# The recorder's C ABI from a C program (tests/capi/c_client.c) and the Python module from a real
# /usr/bin/python3 process.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"

lib="$(ls "$KS_BINARY_DIR"/core/capi/libkinetoscope.so.1 2>/dev/null || true)"
[ -n "$lib" ] || fail "libkinetoscope.so.1 not built"

# The library is dlopen'ed by Python (and by CUDA injection): its thread-local storage must fit in
# glibc's small static TLS surplus, or loading fails with "cannot allocate memory in static TLS block".
tls="$(readelf -lW "$lib" | awk '$1 == "TLS" { print $6 }')"
[ -z "$tls" ] || [ $((tls)) -le 512 ] || fail "libkinetoscope.so has $((tls)) bytes of TLS (keep it under 512)"

"$KS_BINARY_DIR/tests/ks_c_client" "$work" || fail "C client"
for w in 0 1; do
    f="$work/window$w.pt.trace.json"
    info="$("$KS_BIN" info "$f")" || fail "cannot read $f"
    echo "$info" | grep -q "memory events 4" || fail "window $w: expected 4 memory events (2 steps x alloc+free): $info"
    /usr/bin/python3 - "$f" <<'PY' || fail "window $w content"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
x = [e["name"] for e in ev if e.get("ph") == "X"]
assert x.count("train_step") == 2, x.count("train_step")
assert x.count("worker_task") == 100, x.count("worker_task")
assert sum(1 for n in x if n.startswith("ProfilerStep#")) == 2
assert sum(1 for e in ev if e.get("ph") == "C") == 2
assert any(e.get("name") == "thread_name" and "(c-worker)" in e["args"]["name"] for e in ev)
PY
done

# with_stack from C: the native stack names the program's function (the library's own frames are
# left out); an explicit stack is kept as given, after the range's args.
/usr/bin/python3 - "$work/stack.pt.trace.json" <<'PY' || fail "C with_stack trace"
import json, sys
ev = {e["name"]: e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"}
frames = ev["native"]["args"]["Call stack"].split(";")
assert frames[0].startswith("c_stack_leaf (ks_c_client+0x"), frames
assert "ks_c_client+0x" in frames[1], frames  # record_stacks (static) or main it was inlined into
assert not any("kinetoscope" in f for f in frames), frames
assert ev["explicit"]["args"] == {"n": 1, "Call stack": "app.lua(3): f;app.lua(9): main"}, ev["explicit"]["args"]
PY

PYTHONPATH="$KS_SOURCE_DIR/resources/python" KINETOSCOPE_LIB="$lib" KS_PY_STACK_TRACE="$work/pystack.json" \
    /usr/bin/python3 "$KS_SOURCE_DIR/tests/scripts/python_module_check.py" || fail "python module"

# export-stacks on the with_stack trace the Python check wrote: its frames, outermost first.
"$KS_BIN" export-stacks "$work/pystack.json" "$work/pystack.txt" || fail "export-stacks on the Python trace"
grep -q "python_module_check.py([0-9]*):_stack_caller;[^ ]*python_module_check.py([0-9]*):_stack_leaf [0-9]" \
    "$work/pystack.txt" || fail "export-stacks lines: $(cat "$work/pystack.txt")"
echo "C ABI and Python module OK"
