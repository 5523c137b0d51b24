#!/bin/sh
# Memory categories from real tensors (rule R1, docs/memory-categories.md): a small Adam training
# loop profiled by kinetoscope.profile(profile_memory=True) with the torch observer. PARAMETER
# holds exactly the parameters' bytes from the start, GRADIENT appears with the first backward and
# holds the parameters' size, OPTIMIZER_STATE appears with the first Adam step and holds Adam's
# state, INPUT holds the batch.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" \
KINETOSCOPE_TORCH_LIB="$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so" \
PYTHONPATH="$KS_SOURCE_DIR/resources/python" \
    "$PY" "$KS_SOURCE_DIR/tests/scripts/torch_memory_categories.py" "$work/mem" || fail "profiled run"
"$PY" - "$work/mem.json" "$work/mem.expected.json" <<'PY'
import json, sys
times, sizes = json.load(open(sys.argv[1]))
exp = json.load(open(sys.argv[2]))
# Columns: [placeholder, PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT,
# AUTOGRAD_DETAIL, Unknown], running bytes per time.
col = {name: [row[i] for row in sizes] for i, name in enumerate(
    ["_", "PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY", "ACTIVATION", "GRADIENT", "AUTOGRAD_DETAIL", "Unknown"])}
errors = []
def check(ok, msg):
    if not ok:
        errors.append(msg)
p = exp["param_bytes"]
check(set(col["PARAMETER"]) == {p}, f"PARAMETER bytes {sorted(set(col['PARAMETER']))}, parameters hold {p}")
grad = col["GRADIENT"]
check(grad[0] == 0, f"GRADIENT {grad[0]} before the first backward")
check(max(grad) == p, f"GRADIENT peaks at {max(grad)}, the parameters hold {p}")
opt = col["OPTIMIZER_STATE"]
check(opt[0] == 0, f"OPTIMIZER_STATE {opt[0]} before the first step")
check(max(opt) == exp["state_bytes"], f"OPTIMIZER_STATE peaks at {max(opt)}, Adam's state holds {exp['state_bytes']}")
first = lambda c: next((i for i, v in enumerate(c) if v > 0), None)
check(first(grad) is not None and first(opt) is not None and first(grad) < first(opt),
      f"gradients first at row {first(grad)}, optimizer state at row {first(opt)}")
check(max(col["INPUT"]) >= exp["input_bytes"], f"INPUT peaks at {max(col['INPUT'])}, a batch is {exp['input_bytes']}")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"memory categories: parameters {p} B, gradients {max(grad)} B, optimizer state {max(opt)} B, "
      f"inputs up to {max(col['INPUT'])} B")
PY
