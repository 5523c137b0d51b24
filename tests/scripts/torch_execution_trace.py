# kinetoscope.profile(execution_trace_observer=...) with torch's execution trace observer (1.13:
# ExecutionGraphObserver; 2.x: ExecutionTraceObserver, the same observer renamed): the
# observer records exactly the profiled windows (started and stopped with them, as torch.profiler
# does). The execution trace is written beside the window's trace with the same stem
# (<dir>/run.et.json next to <dir>/run.pt.trace.json) so that opening the trace pairs them.
import json
import os
import sys

import torch

import kinetoscope

out = sys.argv[1]
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
Observer = getattr(torch.profiler, "ExecutionTraceObserver", None) or torch.profiler.ExecutionGraphObserver
et = Observer()
et.register_callback(os.path.join(out, "run.et.json"))
windows = []


def ready(prof):
    windows.append(prof.step_num)
    prof.export_chrome_trace(os.path.join(out, "run.pt.trace.json"))


with kinetoscope.profile(activities=[kinetoscope.ProfilerActivity.CPU],
                         schedule=kinetoscope.schedule(wait=1, warmup=1, active=2, repeat=1),
                         on_trace_ready=ready, execution_trace_observer=et) as prof:
    for _ in range(6):
        optimizer.zero_grad()
        model(torch.randn(8, 16)).sum().backward()
        optimizer.step()
        prof.step()
et.unregister_callback()
json.dump({"windows": windows}, open(os.path.join(out, "result.json"), "w"))
