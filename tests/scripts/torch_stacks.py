"""Python stacks of operators under profile(with_stack=True): one small script (nested functions, an
nn.Module, a backward) profiled by torch.profiler (argv[1] == "torch") or by kinetoscope swapped in
for it ("kinetoscope"). Writes what both must agree on as JSON to argv[2]: every event's
(name, stack) in list order, the key_averages(group_by_stack_n=5) rows, the table's titles, the
export_stacks lines and the loss. C functions' reprs carry addresses ("<built-in method add of type
object at 0x7f...>"), which differ between runs: they are dropped here.

Kinetoscope's run then checks what torch 1.13 has no counterpart for: the exported trace's "Call
stack" args, a thread started while recording, record_function ranges, a second profile, a profile
without with_stack and the profile function's removal at stop.
"""
import json
import os
import re
import sys
import threading

import torch

ours = sys.argv[1] != "torch"
if ours:
    import kinetoscope as tp
else:
    import torch.profiler as tp

out_path = sys.argv[2]
ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def clean(frames):
    return [ADDRESS.sub("", f) for f in frames]


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Boom(torch.nn.Module):
    def forward(self, x):
        torch.neg(x)
        raise ValueError("boom")


def inner(a):
    b = a * 2
    return b.sum()


def outer(a):
    c = torch.add(a, 1)
    return inner(c)


def generator(a):
    for i in range(2):
        yield torch.sin(a + i)


def step(net, x):
    with torch.autograd.profiler.record_function("user_scope"):
        y = outer(x)
    parts = [t.sum() for t in generator(x)]
    try:
        Boom()(x.detach())
    except ValueError:
        pass
    torch.abs(x.detach())
    z = net(x).sum() + y + parts[0] + parts[1]
    z.backward()
    return float(z)


torch.manual_seed(0)
net = Net()
x = torch.randn(3, 8, requires_grad=True)
TORCH2 = int(torch.__version__.split(".")[0]) >= 2
# torch 2.x fills FunctionEvent.stack only with the verbose experimental config (docs: export_stacks);
# kinetoscope takes the same argument.
extra = {}
if TORCH2:
    from torch._C._profiler import _ExperimentalConfig
    extra["experimental_config"] = _ExperimentalConfig(verbose=True)
with tp.profile(activities=[tp.ProfilerActivity.CPU], with_stack=True, **extra) as prof:
    loss = step(net, x)

# torch 2.x also lists every Python call as an event of its own (is_python_function; what its
# trace's python_function events are); Kinetoscope keeps them as the ops' stack frames and module
# ranges (docs/torch-observer.md, "Limits"), so only the other events are compared.
events = [(e.name, clean(e.stack)) for e in prof.events() if not getattr(e, "is_python_function", False)]
averages = prof.key_averages(group_by_stack_n=5)
rows = sorted([e.key, clean(e.stack), e.count] for e in averages)
table = averages.table(sort_by="self_cpu_time_total", row_limit=-1)
titles = [t.strip() for t in table.splitlines()[1].split("  ") if t.strip()]
stacks_file = out_path + ".stacks.txt"
prof.export_stacks(stacks_file, "self_cpu_time_total")
# "frames value": the frames only, since the values are times.
stack_lines = sorted(re.sub(r"_at_0x[0-9a-f]+", "", ln.rsplit(" ", 1)[0]) for ln in open(stacks_file))
result = {"events": events, "rows": rows, "titles": titles, "stack_lines": stack_lines, "loss": loss}

if ours:
    checks = {}
    # The exported trace: ops carry their stack as "Call stack", innermost first, as written.
    trace_file = out_path + ".trace.json"
    prof.export_chrome_trace(trace_file)
    trace = json.load(open(trace_file))["traceEvents"]
    muls = [e for e in trace if e.get("ph") == "X" and e["name"] == "aten::mul"]
    # Module calls as python_function ranges, once each (not also by moduleranges' hooks), around
    # their ops.
    modules = [e for e in trace if e.get("ph") == "X" and e.get("cat") == "python_function"]
    names = sorted(e["name"] for e in modules)
    # torch 1.x's tracer names module ranges by class, torch 2.x by instance.
    if int(torch.__version__.split(".")[0]) >= 2:
        checks["module_ranges_once"] = names == ["nn.Module: Boom_0", "nn.Module: Linear_0",
                                                 "nn.Module: Linear_1", "nn.Module: Net_0"]
    else:
        checks["module_ranges_once"] = names == ["nn.Module: Boom", "nn.Module: Linear", "nn.Module: Linear",
                                                 "nn.Module: Net"]
    modules_of = lambda cls: [m for m in modules if re.sub(r"_\d+$", "", m["name"]) == "nn.Module: " + cls]
    addmm = [e for e in trace if e.get("ph") == "X" and e["name"] == "aten::addmm"]
    checks["module_ranges_enclose_ops"] = len(addmm) == 2 and all(
        any(m["ts"] <= a["ts"] and a["ts"] + a["dur"] <= m["ts"] + m["dur"]
            for m in modules_of("Linear")) for a in addmm)
    # The exception ends Boom's range and frame: the op after it is outside both.
    boom = modules_of("Boom")
    abs_op = [e for e in trace if e.get("ph") == "X" and e["name"] == "aten::abs"]
    checks["exception_ends_module"] = len(boom) == 1 and len(abs_op) >= 1 and \
        abs_op[0]["ts"] >= boom[0]["ts"] + boom[0]["dur"] and "Boom" not in abs_op[0]["args"].get("Call stack", "")
    checks["trace_call_stack"] = bool(muls) and muls[0]["args"].get("Call stack", "").startswith(
        "torch_stacks.py(50): inner;torch_stacks.py(55): outer;torch_stacks.py(65): step")

    # A thread started while recording, a record_function range, and the profile function gone
    # after stop (sys.getprofile() is the calling thread's).
    def worker(t):
        torch.cos(t)

    with tp.profile(activities=[tp.ProfilerActivity.CPU], with_stack=True, **extra) as prof2:
        th = threading.Thread(target=worker, args=(x.detach(),))
        th.start()
        th.join()
        with tp.record_function("my_range"):
            torch.tan(x.detach())
    checks["profile_removed"] = sys.getprofile() is None
    ev2 = {e.name: e.stack for e in prof2.events()}
    checks["thread_stack"] = any("worker" in f for f in ev2.get("aten::cos", []))
    checks["second_profile_stack"] = any("torch_stacks.py" in f for f in ev2.get("aten::tan", []))
    trace_file2 = out_path + ".trace2.json"
    prof2.export_chrome_trace(trace_file2)
    ranges = [e for e in json.load(open(trace_file2))["traceEvents"] if e.get("name") == "my_range"]
    checks["range_stack"] = bool(ranges) and "torch_stacks.py" in ranges[0]["args"].get("Call stack", "")

    # A scheduled profile: stacks and module ranges in the recorded window, the step's range intact.
    with tp.profile(activities=[tp.ProfilerActivity.CPU], with_stack=True,
                    schedule=tp.schedule(wait=1, warmup=1, active=1), **extra) as prof5:
        for _ in range(3):
            net(x.detach())
            prof5.step()
    ev5 = prof5.events()
    checks["schedule_stacks"] = any(e.name == "aten::addmm" and "nn.Module: Net_0" in e.stack for e in ev5)
    checks["schedule_step_range"] = sum(e.name.startswith("ProfilerStep") for e in ev5) == 1

    # Without with_stack: no stacks, and nothing installed.
    with tp.profile(activities=[tp.ProfilerActivity.CPU]) as prof3:
        torch.exp(x.detach())
    checks["no_stack_without_with_stack"] = all(not e.stack for e in prof3.events())
    checks["no_profile_function"] = sys.getprofile() is None
    # torch's own profiler still works afterwards, with its stacks.
    import torch.profiler as torch_profiler
    with torch_profiler.profile(with_stack=True, **extra) as prof4:
        inner(x)
    checks["torch_profiler_after"] = any("inner" in f for e in prof4.events() for f in e.stack)
    result["checks"] = checks

with open(out_path, "w") as f:
    json.dump(result, f)
