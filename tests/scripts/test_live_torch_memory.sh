#!/bin/sh
# Memory categories of a recorded session (rule R1, docs/memory-categories.md): `kinetoscope record
# --capture cpu,memory -- python3 train_memory.py` (an unmodified Adam loop) must mark the
# parameters, gradients, optimizer state and inputs as kinetoscope.profile(profile_memory=True)
# does. The model is built while the session records, so PARAMETER grows to the parameters' bytes
# and then holds exactly them; GRADIENT peaks at the parameters' bytes after the first backward,
# OPTIMIZER_STATE at Adam's state after the first step, INPUT holds at least a batch.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer

"$KS_BIN" record --capture cpu,memory -o "$work/mem.pt.trace.json" -- \
    "$PY" "$KS_SOURCE_DIR/tests/data/live/train_memory.py" "$work/expected.json" \
    >"$work/record.out" 2>"$work/record.err" || fail "record: $(cat "$work/record.err")"
grep -q "aten ops recorded by" "$work/record.err" || fail "observer not loaded: $(cat "$work/record.err")"
if grep -q "memory categories:" "$work/record.err"; then fail "tagging failed: $(cat "$work/record.err")"; fi
"$KS_BIN" export-memory "$work/mem.pt.trace.json" "$work/mem.json" --device cpu >/dev/null ||
    fail "export-memory of the recorded trace"

"$PY" - "$work/mem.json" "$work/expected.json" "$work/mem.pt.trace.json" <<'PY'
import json, sys
times, sizes = json.load(open(sys.argv[1]))
exp = json.load(open(sys.argv[2]))
marks = [e for e in json.load(open(sys.argv[3]))["traceEvents"] if e.get("name") == "[memory category]"]
col = {name: [row[i] for row in sizes] for i, name in enumerate(
    ["_", "PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY", "ACTIVATION", "GRADIENT", "AUTOGRAD_DETAIL", "Unknown"])}
errors = []
def check(ok, msg):
    if not ok:
        errors.append(msg)
check(marks and all(isinstance(m.get("args", {}).get("Addr"), list) for m in marks),
      f"{len(marks)} [memory category] marks, or marks without their Addr args")
p = exp["param_bytes"]
par = col["PARAMETER"]
check(max(par) == p, f"PARAMETER peaks at {max(par)}, the parameters hold {p}")
full = par.index(p) if p in par else len(par)
check(all(v == p for v in par[full:]), f"PARAMETER leaves {p} after reaching it: {sorted(set(par[full:]))}")
check(all(a <= b for a, b in zip(par[:full], par[1:full + 1])), "PARAMETER shrinks while the model is built")
grad = col["GRADIENT"]
check(grad[full] == 0, f"GRADIENT {grad[full]} before the first backward")
check(max(grad) == p, f"GRADIENT peaks at {max(grad)}, the parameters hold {p}")
opt = col["OPTIMIZER_STATE"]
check(opt[full] == 0, f"OPTIMIZER_STATE {opt[full]} before the first step")
check(max(opt) == exp["state_bytes"], f"OPTIMIZER_STATE peaks at {max(opt)}, Adam's state holds {exp['state_bytes']}")
first = lambda c: next((i for i, v in enumerate(c) if v > 0), None)
check(first(grad) is not None and first(opt) is not None and first(grad) < first(opt),
      f"gradients first at row {first(grad)}, optimizer state at row {first(opt)}")
check(max(col["INPUT"]) >= exp["input_bytes"], f"INPUT peaks at {max(col['INPUT'])}, a batch is {exp['input_bytes']}")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"recorded memory categories: parameters {p} B, gradients {max(grad)} B, optimizer state {max(opt)} B, "
      f"inputs up to {max(col['INPUT'])} B, {len(marks)} marks")
PY
