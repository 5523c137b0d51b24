# Sourced by the script tests (after `set -eu` and the check of their variables): a work directory
# removed on exit, and fail MESSAGE, which ends the test with the message on stderr.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# check_trace FILE ASSERTIONS: runs the Python ASSERTIONS on the Kineto trace FILE, with doc (the
# JSON), ev (its events), x (the "X" events), names (their names) and marks (the names of the "i"
# events) defined.
check_trace() {
    /usr/bin/python3 - "$1" "$2" <<'PY' || fail "trace check: $2"
import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc["traceEvents"]
x = [e for e in ev if e.get("ph") == "X"]
names = [e["name"] for e in x]
marks = [e["name"] for e in ev if e.get("ph") == "i"]
exec(sys.argv[2])
PY
}

# need_torch_observer: the torch tests' start. PY is Debian's python3; the test is skipped (exit 0)
# when it cannot import torch, and fails when libkinetoscope_torch.so was not built beside it.
need_torch_observer() {
    PY=/usr/bin/python3
    if ! "$PY" -c "import torch" >/dev/null 2>&1; then
        echo "SKIP: $PY cannot import torch (Debian's python3-torch is needed)"
        exit 0
    fi
    [ -f "$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so" ] ||
        fail "libkinetoscope_torch.so not built (libtorch-dev missing?)"
}
