#!/bin/sh
# torch.profiler parity: tests/scripts/torch_parity.py profiled once by torch.profiler and once by
# kinetoscope swapped in for it (the Python module plus libkinetoscope_torch.so recording aten ops
# natively). Both must see the same operators with the same call counts, print a table with the
# same columns and rows, call on_trace_ready at the same step, and compute the same loss; under
# torch 2.x (Kineto writes fwdbwd arrows) their arrows must join the same ops.
# Then the observer's options (tests/scripts/torch_observer_check.py). Skips only when
# /usr/bin/python3 cannot import torch.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
cd "$work"
"$PY" "$KS_SOURCE_DIR/tests/scripts/torch_parity.py" torch torch.json 2>"$work/torch.err" || { cat "$work/torch.err"; fail "torch run"; }
KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" \
KINETOSCOPE_TORCH_LIB="$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so" \
PYTHONPATH="$KS_SOURCE_DIR/resources/python" \
    "$PY" "$KS_SOURCE_DIR/tests/scripts/torch_parity.py" kinetoscope ks.json || fail "kinetoscope run"
"$PY" - torch.json ks.json <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
k = json.load(open(sys.argv[2]))
errors = []
def check(ok, msg):
    if not ok:
        errors.append(msg)

check(t["loss"] == k["loss"], f"loss differs: torch {t['loss']} kinetoscope {k['loss']}")
check(t["ready"] == k["ready"], f"on_trace_ready steps: torch {t['ready']} kinetoscope {k['ready']}")
check(t["titles"] == k["titles"], f"table columns: torch {t['titles']} kinetoscope {k['titles']}")
check(k["self_cpu_total_positive"], "kinetoscope self_cpu_time_total is 0")
# Operators torch's own profiler runs: torch 1.13's record_function allocates a handle tensor
# (aten::zeros -> aten::empty, aten::zero_) per range it opens, ProfilerStep#N included; and its
# legacy profiler shows mean's aten::div_ calling itself once. Kinetoscope's ranges allocate
# nothing, so these may only be fewer. torch 2.x's record_function allocates nothing and its Kineto
# profiler counts div_ once: every count must be equal there.
bookkeeping = {"aten::zeros", "aten::empty", "aten::zero_", "aten::div_"} if t["torch_major"] == 1 else set()
# The profiler's own allocations show up as a [memory] row in one of them.
tk = set(t["counts"]) - {"[memory]"}
kk = set(k["counts"]) - {"[memory]"}
check(tk == kk, f"operators only in torch: {sorted(tk - kk)}; only in kinetoscope: {sorted(kk - tk)}")
for key in sorted(tk & kk):
    a, b = t["counts"][key], k["counts"][key]
    if key in bookkeeping:
        check(0 < b <= a, f"{key}: torch {a} calls, kinetoscope {b}")
    else:
        check(a == b, f"{key}: torch {a} calls, kinetoscope {b}")
for key in ("aten::linear", "aten::addmm", "aten::relu", "aten::mse_loss", "AddmmBackward0",
            "autograd::engine::evaluate_function: AddmmBackward0", "ReluBackward0",
            "torch::autograd::AccumulateGrad", "forward", "loss_fn", "ProfilerStep*"):
    check(k["counts"].get(key, 0) > 0, f"{key} not recorded by kinetoscope")
check(k.get("fwdbwd_ok"), f"fwdbwd arrows: {k.get('fwdbwd_flows')} flows, not all from forward ops to backward functions")
# torch 2.x (Kineto) writes the arrows too: the same (forward op, backward function) pairs. Among
# the forward ops sharing a (sequence number, thread) both start the arrow at the one that began
# last (aten::t inside aten::linear), and the backward function that ends first takes it (not the
# evaluate_function range around it): core/record/fwdbwdlinks.h.
if t["fwdbwd_pairs"]:
    pairs = lambda r: sorted(tuple(p) for p in r["fwdbwd_pairs"])
    check(pairs(t) == pairs(k), f"fwdbwd arrows: torch {pairs(t)}\nkinetoscope {pairs(k)}")
elif t["torch_major"] >= 2:
    check(False, "torch 2.x wrote no fwdbwd arrows to compare with")
rows = lambda r: sorted(x for x in r if x != "[memory]")
check(rows(t["rows"]) == rows(k["rows"]), f"table rows: torch {rows(t['rows'])}\nkinetoscope {rows(k['rows'])}")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"parity: {len(kk)} operators, {sum(k['counts'].values())} calls, same columns and rows; "
      f"{k['fwdbwd_flows']} fwdbwd arrows" + (", the same as torch's" if t["fwdbwd_pairs"] else ""))
PY

# The observer's own options (filter, shape sampling, memory) and its clean exit.
KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" \
KINETOSCOPE_TORCH_LIB="$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so" \
PYTHONPATH="$KS_SOURCE_DIR/resources/python" \
    "$PY" "$KS_SOURCE_DIR/tests/scripts/torch_observer_check.py" "$work" || fail "observer options"
