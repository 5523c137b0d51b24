#!/bin/sh
# kinetoscope.profile(with_modules=True): every nn.Module call is a python_function range
# "nn.Module: <class>" (torch 1.13's Python tracer names), nested as the calls nest, with the
# module's aten ops inside it; without with_modules / with_stack there are none.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" \
KINETOSCOPE_TORCH_LIB="$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so" \
PYTHONPATH="$KS_SOURCE_DIR/resources/python" \
    "$PY" - "$work" <<'PY' || fail "profiled run"
import sys
import torch
import kinetoscope
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
for with_modules in (True, False):
    with kinetoscope.profile(activities=[kinetoscope.ProfilerActivity.CPU], with_modules=with_modules) as prof:
        for _ in range(3):
            model(torch.randn(8, 16)).sum().backward()
            prof.step()
    prof.export_chrome_trace(f"{sys.argv[1]}/modules_{int(with_modules)}.json")
PY
"$PY" - "$work" <<'PY'
import collections, json, os, re, sys
errors = []
def check(ok, msg):
    if not ok:
        errors.append(msg)
def load(path):
    return [e for e in json.load(open(path))["traceEvents"] if e.get("ph") == "X"]
events = load(f"{sys.argv[1]}/modules_1.json")
mods = [e for e in events if e.get("cat") == "python_function"]
counts = collections.Counter(e["name"] for e in mods)
# torch 1.x's tracer names module ranges by class, torch 2.x by instance, numbered per class in
# call order (what torch 2.14's own export writes for the same model).
if os.environ["TORCH_MAJOR"] == "1":
    expected = {"nn.Module: Sequential": 3, "nn.Module: Linear": 6, "nn.Module: ReLU": 3}
else:
    expected = {"nn.Module: Sequential_0": 3, "nn.Module: Linear_0": 3, "nn.Module: Linear_1": 3,
                "nn.Module: ReLU_0": 3}
check(counts == expected, f"module ranges {dict(counts)}")
cls = lambda name: re.sub(r"_\d+$", "", name) if os.environ["TORCH_MAJOR"] != "1" else name
inside = lambda a, b: a["tid"] == b["tid"] and b["ts"] <= a["ts"] and a["ts"] + a["dur"] <= b["ts"] + b["dur"]
seqs = [e for e in mods if cls(e["name"]) == "nn.Module: Sequential"]
check(all(any(inside(m, s) for s in seqs) for m in mods if m not in seqs), "a module range outside Sequential")
linears = [e for e in mods if cls(e["name"]) == "nn.Module: Linear"]
addmm = [e for e in events if e["name"] == "aten::addmm"]
check(len(addmm) == 6 and all(any(inside(a, l) for l in linears) for a in addmm),
      "aten::addmm not inside a Linear module range")
check(not [e for e in load(f"{sys.argv[1]}/modules_0.json") if e.get("cat") == "python_function"],
      "module ranges without with_modules")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"module ranges: {dict(counts)}")
PY
