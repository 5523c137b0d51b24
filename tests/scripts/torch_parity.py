"""One small training script, profiled by torch.profiler (argv[1] == "torch") or by kinetoscope
swapped in for it ("kinetoscope"); writes what both must agree on as JSON to argv[2]: per-key call
counts of key_averages(), the table's column titles and row names, the steps on_trace_ready saw and
the fwdbwd arrows of the exported window.
"""
import json
import sys

import torch

if sys.argv[1] == "torch":
    import torch.profiler as tp
else:
    import kinetoscope as tp

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(8, 16)
target = torch.randn(8, 4)
ready = []


@tp.record_function("loss_fn")
def loss_fn(out):
    return torch.nn.functional.mse_loss(out, target)


with tp.profile(activities=[tp.ProfilerActivity.CPU], record_shapes=True, profile_memory=True,
                schedule=tp.schedule(wait=1, warmup=1, active=2),
                on_trace_ready=lambda p: ready.append(p.step_num)) as prof:
    for step in range(4):
        with tp.record_function("forward"):
            out = model(x)
        loss = loss_fn(out)
        opt.zero_grad()
        loss.backward()
        opt.step()
        prof.step()

averages = prof.key_averages()
table = averages.table(sort_by="self_cpu_time_total", row_limit=-1)
lines = table.splitlines()
# Line 1 is the rule, line 2 the column titles, rows between the 3rd rule and the closing one.
titles = [t for t in lines[1].split("  ") if t.strip()]
rows = [ln.strip().split("  ")[0] for ln in lines[3:] if ln and not ln.startswith("-") and "time total" not in ln]
result = {
    "counts": {e.key: e.count for e in averages},
    "titles": [t.strip() for t in titles],
    "rows": [r for r in rows if r],
    "ready": ready,
    "self_cpu_total_positive": averages.self_cpu_time_total > 0,
    # .item(): float() of a tensor that requires grad warns under torch 2.x; the value is the same.
    "loss": loss.item(),
    "torch_major": int(torch.__version__.split(".")[0]),
}
# The fwdbwd arrows of the exported window, as (forward op, backward function) name pairs. torch
# 1.13 without Kineto writes none; torch 2.x's Kineto does (test_torch_parity.sh compares them).
prof.export_chrome_trace(sys.argv[2] + ".trace.json")
doc = json.load(open(sys.argv[2] + ".trace.json"))
# torch 1.13's legacy profiler writes the events as a bare list.
events = doc["traceEvents"] if isinstance(doc, dict) else doc
starts = {(e["tid"], e["ts"]): e["name"] for e in events if e.get("ph") == "X"}
flows = {}
for e in events:
    if e.get("cat") == "fwdbwd":
        flows.setdefault(e["id"], {})[e["ph"]] = starts.get((e["tid"], e["ts"]), "")
pairs = sorted((f.get("s", ""), f.get("f", "")) for f in flows.values())
result["fwdbwd_pairs"] = pairs
result["fwdbwd_flows"] = len(pairs)
# Kineto's rule: every arrow starts at an op of the forward pass and ends at a backward function.
result["fwdbwd_ok"] = bool(pairs) and all(s and not s.endswith(("Backward0", "Backward1"))
                                          and f.endswith(("Backward0", "Backward1")) for s, f in pairs)
with open(sys.argv[2], "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
