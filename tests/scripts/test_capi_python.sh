#!/bin/sh
# The recorder's C ABI from a C program (tests/capi/c_client.c) and the Python module from a real
# /usr/bin/python3 process.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}" "${KS_BIN:?}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

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

PYTHONPATH="$KS_SOURCE_DIR/resources/python" KINETOSCOPE_LIB="$lib" /usr/bin/python3 \
    "$KS_SOURCE_DIR/tests/scripts/python_module_check.py" || fail "python module"
echo "C ABI and Python module OK"
