#!/bin/sh
# Python stacks of operators under profile(with_stack=True) (core/torch/pystack.h): the same script
# (tests/scripts/torch_stacks.py) profiled by torch.profiler (torch 1.13) and by kinetoscope must
# give the same FunctionEvent.stack for the same operators, the same key_averages(group_by_stack_n=5)
# rows, a table with torch's "Source Location" column, export_stacks lines in torch's format and
# the same loss. Compared exactly: the forward pass, every backward function and autograd
# evaluate_function, and what runs after backward. Not compared: ops run by backward functions,
# whose stack torch takes from the enclosing backward function by its microsecond-rounded event
# tree (EventList._set_backward_stacktraces), so ties at one microsecond decide it there
# (docs/torch-observer.md). Then kinetoscope's own checks (trace "Call stack", threads, ranges, a
# second profile, removal at stop). Skips only when /usr/bin/python3 cannot import torch.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
cd "$work"
# The script names its own frames by file name: run it from a copy in the work directory, as both
# profilers then strip nothing from it.
cp "$KS_SOURCE_DIR/tests/scripts/torch_stacks.py" .
"$PY" torch_stacks.py torch torch.json 2>"$work/torch.err" || { cat "$work/torch.err"; fail "torch run"; }
KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" \
KINETOSCOPE_TORCH_LIB="$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so" \
PYTHONPATH="$KS_SOURCE_DIR/resources/python" \
    "$PY" torch_stacks.py kinetoscope ks.json || fail "kinetoscope run"
"$PY" - torch.json ks.json <<'PY'
import collections, json, re, sys
t = json.load(open(sys.argv[1]))
k = json.load(open(sys.argv[2]))
errors = []
def check(ok, msg):
    if not ok:
        errors.append(msg)

check(t["loss"] == k["loss"], f"loss differs: torch {t['loss']} kinetoscope {k['loss']}")
check("Source Location" in t["titles"] and t["titles"] == k["titles"],
      f"table columns: torch {t['titles']} kinetoscope {k['titles']}")
for name, ok in sorted(k["checks"].items()):
    check(ok, f"kinetoscope check failed: {name}")

EVAL = "autograd::engine::evaluate_function: "
def is_bwd_fn(name):
    return bool(re.search(r"Backward\d*$", name)) and not name.startswith(EVAL) or \
        name == "torch::autograd::AccumulateGrad"

def regions(events):
    """Events compared exactly: before the first evaluate_function, the evaluate_functions and
    backward functions themselves, and those after backward (from the first event back on the
    caller's stack, outside Tensor.backward)."""
    names = [n for n, _ in events]
    first = next(i for i, n in enumerate(names) if n.startswith(EVAL))
    last = max(i for i, n in enumerate(names) if n.startswith(EVAL))
    caller = events[first - 1][1][-2:] if first else []
    after = next((i for i in range(last + 1, len(events))
                  if events[i][1] and not is_bwd_fn(events[i][0]) and events[i][1][-2:] == caller
                  and "run_backward" not in events[i][1][0] and "_tensor.py" not in " ".join(events[i][1])),
                 len(events))
    forward = [tuple([n, tuple(s)]) for n, s in events[:first]]
    backward = [tuple([n, tuple(s)]) for n, s in events[first:after] if n.startswith(EVAL) or is_bwd_fn(n)]
    tail = [tuple([n, tuple(s)]) for n, s in events[after:]]
    inside = {n for n, _ in events[first:after] if not (n.startswith(EVAL) or is_bwd_fn(n))}
    return forward, backward, tail, inside

tf, tb, tt, tin = regions(t["events"])
kf, kb, kt, kin = regions(k["events"])
check(len(tf) > 20 and any("nn.Module: Net_0" in s for _, s in tf), f"torch's forward pass looks wrong: {tf[:3]}")
# Ops that start at the same microsecond may be listed in either order: compared as multisets.
def diff(a, b):
    ca, cb = collections.Counter(a), collections.Counter(b)
    return sorted((ca - cb).items())[:4], sorted((cb - ca).items())[:4]
# torch 1.13's profiler lists Tensor.sum() as aten::sum calling aten::sum (the dim overload), one
# call more than Kinetoscope's observer sees (test_torch_parity allows the same): those names are
# compared by their distinct stacks, without counts.
nested = {"aten::sum"}
def counted(events):
    return collections.Counter(e for e in events if e[0] not in nested)
check(counted(tf) == counted(kf), "forward stacks differ (torch only, kinetoscope only): %s" % (diff(tf, kf),))
check({e for e in tf if e[0] in nested} == {e for e in kf if e[0] in nested},
      "forward stacks of %s differ: %s" % (sorted(nested), diff(tf, kf)))
check(collections.Counter(tb) == collections.Counter(kb), "backward function stacks differ: %s" % (diff(tb, kb),))
check(collections.Counter(tt) == collections.Counter(kt), "stacks after backward differ: %s" % (diff(tt, kt),))

# key_averages(group_by_stack_n=5): rows of the names seen only outside the backward pass's ops.
compared = ({n for n, _ in tf + tb + tt} | {n for n, _ in kf + kb + kt}) - tin - kin
rows = lambda r: sorted((key, tuple(stack), None if key in nested else count)
                        for key, stack, count in r if key in compared)
check(rows(t["rows"]) == rows(k["rows"]), "group_by_stack_n=5 rows differ: %s" % (diff(rows(t["rows"]), rows(k["rows"])),))
check(any(len(s) == 5 for _, s, _ in k["rows"]), "no row has 5 frames")

# export_stacks: outermost first, ';'-joined, spaces as '_'; the linear layer's line in both.
linear = [s for n, s in tf if n == "aten::linear"][0]
line = ";".join(f.replace(" ", "_") for f in reversed(linear))
check(line in t["stack_lines"], f"torch export_stacks has no line {line}")
check(line in k["stack_lines"], f"kinetoscope export_stacks has no line {line}")
ours = {";".join(f.replace(" ", "_") for f in reversed(s)) for _, s in k["events"] if s}
check(set(k["stack_lines"]) <= ours, "kinetoscope export_stacks has lines no event has: %s" % sorted(set(k["stack_lines"]) - ours)[:3])
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"stacks: {len(kf)} forward, {len(kb)} backward-function, {len(kt)} later events and "
      f"{len(rows(k['rows']))} group_by_stack_n rows as torch's")
PY
