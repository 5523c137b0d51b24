"""The torch observer's options through kinetoscope.profile: op filter, shape sampling, memory, and
the callback going away when the profile stops. Run by test_torch_parity.sh (argv[1]: scratch dir)."""
import json
import os
import sys

import torch

import kinetoscope as ks
from kinetoscope import torchobserver

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def trace_of(prof, name):
    path = os.path.join(sys.argv[1], name)
    prof.export_chrome_trace(path)
    return json.load(open(path))["traceEvents"]


model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8))
x = torch.randn(2, 8)
with torch.no_grad():
    expected = model(x)

# Filter: without aten::t and anything under the aten::ad prefix; user scopes are never filtered.
with ks.profile(op_filter={"exclude": ["aten::t", "aten::ad"]}) as p:
    with torch.profiler.record_function("aten::t user scope"):
        with torch.no_grad():
            out = model(x)
check(torch.equal(out, expected), "results changed under the observer")
counts = {e.key: e.count for e in p.key_averages()}
check("aten::t" not in counts and "aten::addmm" not in counts, f"excluded ops recorded: {sorted(counts)}")
check(counts.get("aten::linear") == 2 and counts.get("aten::relu") == 1, f"other ops: {counts}")
check(counts.get("aten::t user scope") == 1, "a user scope was filtered")
check(not torchobserver.active(), "observer still registered after stop()")

with ks.profile(op_filter={"include": ["aten::relu"]}) as p:
    with torch.no_grad():
        model(x)
counts = {e.key: e.count for e in p.key_averages()}
check(sorted(counts) == ["aten::relu", "aten::clamp_min"] or sorted(counts) == ["aten::relu"],
      f"include filter: {sorted(counts)}")

# Shape sampling: every 4th call of each op name has shapes.
with ks.profile(record_shapes=True, shape_sampling=4) as p:
    with torch.no_grad():
        for _ in range(8):
            model(x)
addmm = [e for e in trace_of(p, "sampled.json") if e.get("name") == "aten::addmm"]
with_dims = [e for e in addmm if "Input Dims" in e.get("args", {})]
check(len(addmm) == 16 and len(with_dims) == 4, f"sampling: {len(with_dims)} of {len(addmm)} addmm with shapes")
check(all(e["args"]["Input type"][:3] == ["float"] * 3 and e["args"]["Concrete Inputs"][3:] == ["1", "1"]
          for e in with_dims), "addmm input types / concrete scalars")

# Memory: allocations and frees of the op outputs, with sizes.
with ks.profile(profile_memory=True) as p:
    y = torch.ones(1024, 256)
    del y
mem = [e for e in trace_of(p, "memory.json") if e.get("name") == "[memory]"]
sizes = [e["args"]["Bytes"] for e in mem]
check(1024 * 256 * 4 in sizes and -1024 * 256 * 4 in sizes, f"1 MiB alloc and free: {sizes}")
check(not torch.autograd._profiler_enabled(), "torch believes its profiler is on")
# torch's own profiler still works on this thread afterwards.
with torch.profiler.profile(profile_memory=True) as tp:
    torch.ones(16)
check(any(e.key == "aten::ones" for e in tp.key_averages()), "torch.profiler after kinetoscope")

print("torch observer: %d failures" % len(failures))
sys.exit(1 if failures else 0)
