#!/bin/sh
# Native live mode with the torch observer: `kinetoscope record -- python3 train_mlp.py` (an
# unmodified script, default capture) must stream every aten op and autograd function as it runs,
# inside the module ranges, with allocations and the memory categories' marks (memory is captured by
# default); with --capture cpu,shapes input shapes and no allocations.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
data="$KS_SOURCE_DIR/tests/data/live"
steps=6

"$KS_BIN" record -o "$work/ops.pt.trace.json" -- "$PY" "$data/train_mlp.py" $steps >"$work/ops.out" 2>"$work/ops.err" ||
    fail "record: $(cat "$work/ops.err")"
grep -q "aten ops recorded by" "$work/ops.err" || fail "observer not loaded: $(cat "$work/ops.err")"
"$KS_BIN" record --capture cpu,shapes -o "$work/shapes.pt.trace.json" -- "$PY" "$data/train_mlp.py" $steps \
    >"$work/shapes.out" 2>"$work/shapes.err" || fail "record with shapes: $(cat "$work/shapes.err")"

"$PY" - "$work/ops.pt.trace.json" "$work/shapes.pt.trace.json" $steps <<'PY'
import collections, json, os, re, sys
steps = int(sys.argv[3])
def load(path):
    ev = json.load(open(path))["traceEvents"]
    load.marks = [e for e in ev if e.get("name") == "[memory category]"]
    return [e for e in ev if e.get("ph") == "X"], [e for e in ev if e.get("name") == "[memory]"]
errors = []
def check(ok, msg):
    if not ok:
        errors.append(msg)

ops, mem = load(sys.argv[1])
counts = collections.Counter(e["name"] for e in ops if e.get("cat") == "cpu_op")
# Two Linear layers per step, forward and backward.
for name, per_step in (("aten::linear", 2), ("aten::addmm", 2), ("aten::relu", 1), ("AddmmBackward0", 2),
                       ("autograd::engine::evaluate_function: AddmmBackward0", 2), ("ReluBackward0", 1)):
    check(counts[name] == per_step * steps, f"{name}: {counts[name]} ops, expected {per_step * steps}")
# Every linear op inside an nn.Module: Linear range on the same thread.
# torch 1.x's tracer names module ranges by class, torch 2.x by instance (Linear_0, Linear_1).
linear = re.compile(r"nn\.Module: Linear" + ("" if os.environ["TORCH_MAJOR"] == "1" else r"_\d+"))
modules = [e for e in ops if linear.fullmatch(e["name"])]
check(len(modules) == 2 * steps, f"{len(modules)} module ranges")
check(all(m.get("cat") == "python_function" for m in modules), "module ranges not of category python_function")
inside = sum(1 for e in ops if e["name"] == "aten::linear" and any(
    m["tid"] == e["tid"] and m["ts"] <= e["ts"] and e["ts"] + e["dur"] <= m["ts"] + m["dur"] for m in modules))
check(inside == 2 * steps, f"{inside} of {counts['aten::linear']} aten::linear inside a Linear module range")
check(len(mem) > 10 * steps, f"{len(mem)} memory events with the default capture")
cats = {m.get("args", {}).get("Category") for m in load.marks}
check({"PARAMETER", "GRADIENT", "OPTIMIZER_STATE", "INPUT"} <= cats, f"memory category marks {sorted(map(str, cats))}")

ops, mem = load(sys.argv[2])
addmm = [e for e in ops if e["name"] == "aten::addmm"]
check(addmm and all(e.get("args", {}).get("Input Dims") for e in addmm), "aten::addmm without Input Dims")
check(any(e["args"]["Input Dims"][1] == [32, 64] for e in addmm), "no addmm with the [32, 64] batch")
check(not mem, "allocations recorded without memory capture")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"live torch ops: {sum(counts.values())} ops")
PY
