#!/bin/sh
# `kinetoscope record --capture cpu,stack` of an unmodified script (native mode, live protocol 1.2):
# aten ops carry their Python stack as the "Call stack" arg in torch's frame format, also in a thread
# the script starts; without stack, no op carries one.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
script="$KS_SOURCE_DIR/tests/data/live/nested_calls.py"
steps=3

for capture in cpu,stack cpu; do
    "$KS_BIN" record --capture $capture -o "$work/$capture.pt.trace.json" -- "$PY" "$script" $steps \
        >"$work/$capture.out" 2>"$work/$capture.err" || fail "record $capture: $(cat "$work/$capture.err")"
done

"$PY" - "$work/cpu,stack.pt.trace.json" "$work/cpu.pt.trace.json" $steps "$TORCH_MAJOR" <<'PY'
import json, re, sys
steps = int(sys.argv[3])
# torch 1.x's tracer names module ranges by class, torch 2.x by instance.
linear_range = "nn.Module: Linear" if sys.argv[4] == "1" else "nn.Module: Linear_0"
def ops(path):
    events = json.load(open(path))["traceEvents"]
    return [e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
errors = []
def check(ok, msg):
    if not ok:
        errors.append(msg)

frame = re.compile(r"^.+\.py\(\d+\): .+$")
with_stack = ops(sys.argv[1])
mm = [e for e in with_stack if e["name"] == "aten::mm"]
check(len(mm) == steps + 1, f"{len(mm)} aten::mm ops, expected {steps + 1}")
for e in mm:
    stack = e.get("args", {}).get("Call stack")
    check(stack, f"aten::mm at {e['ts']} has no Call stack")
    if not stack:
        continue
    frames = stack.split(";")
    # torch's frames: "file.py(line): name" for Python code, "<built-in method mm ...>" for C calls.
    bad = [f for f in frames if not frame.match(f) and not f.startswith("<built-in ")]
    check(not bad, f"frames not in torch's format: {bad[:3]}")
    names = [f.split(": ", 1)[1] for f in frames if frame.match(f)]
    # Innermost first: the function that called torch.mm, then its caller.
    check(names and names[0] == "inner_matmul", f"innermost frame {frames[:1]}")
    check("outer_layer" in names or "in_thread" in names, f"no caller in {frames}")
    check(all(f.startswith("nested_calls.py(") or "nested_calls.py(" not in f for f in frames),
          f"script frames keep their directory: {frames}")
callers = {n for e in mm for n in e.get("args", {}).get("Call stack", "").split(";")}
check(any(c.endswith(": outer_layer") for c in callers), "no op under outer_layer")
check(any(c.endswith(": in_thread") for c in callers), "no op of the script's thread under in_thread")
relu = [e for e in with_stack if e["name"] == "aten::relu"]
def python_frames(e):
    return [f for f in e.get("args", {}).get("Call stack", "").split(";") if frame.match(f)]
check(relu and all(python_frames(e)[:1] and python_frames(e)[0].endswith(": outer_layer") for e in relu),
      "aten::relu not called from outer_layer")

# Module calls: named in the stacks as torch names them, and recorded once as python_function
# ranges (by the observer under with_stack, by the bootstrap's hooks without).
linear = [e for e in with_stack if e["name"] == "aten::linear"]
check(len(linear) == steps and all("nn.Module: Linear_0" in python_frames(e) or
                                   "nn.Module: Linear_0" in e["args"].get("Call stack", "").split(";")
                                   for e in linear), f"aten::linear stacks: {[e['args'].get('Call stack') for e in linear[:1]]}")
def module_ranges(path):
    events = json.load(open(path))["traceEvents"]
    return [e for e in events if e.get("cat") == "python_function" and e["name"] == linear_range]
for path in sys.argv[1:3]:
    check(len(module_ranges(path)) == steps, f"{len(module_ranges(path))} {linear_range} ranges in {path}")

without = ops(sys.argv[2])
check(any(e["name"] == "aten::mm" for e in without), "no aten::mm without stack")
check(not any("Call stack" in e.get("args", {}) for e in without), "an op has a Call stack without stack capture")
if errors:
    print("\n".join(errors[:20]))
    sys.exit(1)
print(f"stacks: {len(with_stack)} ops with stack capture, e.g. {mm[0]['args']['Call stack']}")
PY
echo ok
