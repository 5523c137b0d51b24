#!/bin/sh
# kinetoscope.profile(execution_trace_observer=ExecutionGraphObserver()) starts and stops torch's
# execution trace observer with the profiling window (schedule wait 1, warmup 1, active 2): the
# execution trace holds the ops of exactly the two recorded steps. Then the trace opened alone finds
# the execution trace beside it (same stem) and links its ops.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" \
KINETOSCOPE_TORCH_LIB="$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so" \
PYTHONPATH="$KS_SOURCE_DIR/resources/python" \
    "$PY" "$KS_SOURCE_DIR/tests/scripts/torch_execution_trace.py" "$work" 2>"$work/run.err" ||
    fail "profiled run: $(cat "$work/run.err")"
"$PY" - "$work" <<'PY'
import collections, json, os, sys
d = sys.argv[1]
errors = []
def check(ok, msg):
    if not ok:
        errors.append(msg)
result = json.load(open(os.path.join(d, "result.json")))
check(result["windows"] == [4], f"on_trace_ready at steps {result['windows']}")
et = json.load(open(os.path.join(d, "run.et.json")))
names = collections.Counter(n["name"] for n in et["nodes"])
# Two Linear layers per step, two recorded steps; warmup and wait steps are not in it.
check(names["aten::addmm"] == 4, f"execution trace holds {names['aten::addmm']} aten::addmm, expected 4")
check(names["AddmmBackward0"] == 4, f"execution trace holds {names['AddmmBackward0']} AddmmBackward0, expected 4")
trace = json.load(open(os.path.join(d, "run.pt.trace.json")))["traceEvents"]
ops = [e for e in trace if e.get("ph") == "X" and e.get("name") == "aten::addmm"]
check(len(ops) == 4, f"the window's trace holds {len(ops)} aten::addmm")
rf = {e["args"].get("Record function id") for e in ops}
def rf_id(node):
    # torch 1.13 writes it as a node field; torch 2.x among the node's "attrs".
    if "rf_id" in node:
        return node["rf_id"]
    return next((a.get("value") for a in node.get("attrs", []) if a.get("name") == "rf_id"), None)
et_rf = {rf_id(n) for n in et["nodes"] if n["name"] == "aten::addmm"}
check(rf == et_rf, f"record function ids differ: trace {sorted(rf)}, execution trace {sorted(et_rf)}")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"execution trace: {len(et['nodes'])} nodes of the recorded window")
PY
"$KS_BIN" info "$work/run.pt.trace.json" >"$work/info.out" 2>&1 || fail "info: $(cat "$work/info.out")"
grep -q "execution trace: .*run.et.json (beside the trace)" "$work/info.out" ||
    fail "the execution trace beside the trace was not paired: $(cat "$work/info.out")"
# The window and the execution trace hold the same ops: every one links.
grep -Eq "^linked to trace ops: ([1-9][0-9]*)/\1 .*; 0 unlinked" "$work/info.out" || fail "ops not linked: $(cat "$work/info.out")"
echo "ok: $(grep "^linked to trace ops" "$work/info.out")"
