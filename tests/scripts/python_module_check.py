"""Checks the kinetoscope Python module (ctypes over libkinetoscope) from a real interpreter.

Run by test_capi_python.sh with PYTHONPATH=resources/python and KINETOSCOPE_LIB set. Uses Debian's
torch 1.13 (when importable) as the reference for schedule().
"""
import csv
import glob
import gzip
import json
import os
import sys
import tempfile
import threading
import time

import kinetoscope as ks

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def events_of(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["traceEvents"]


def names(events, ph="X"):
    return [e["name"] for e in events if e.get("ph") == ph]


tmp = tempfile.mkdtemp()

# schedule() against torch's own implementation.
try:
    import torch.profiler as tp
    for wait in range(3):
        for warmup in range(3):
            for active in range(1, 4):
                for repeat in range(3):
                    for skip in (0, 2):
                        ours = ks.schedule(wait=wait, warmup=warmup, active=active, repeat=repeat, skip_first=skip)
                        theirs = tp.schedule(wait=wait, warmup=warmup, active=active, repeat=repeat, skip_first=skip)
                        check([ours(i).value for i in range(30)] == [theirs(i).value for i in range(30)],
                              f"schedule {wait},{warmup},{active},{repeat},{skip} differs from torch")
except ImportError:
    print("torch not importable; schedule comparison skipped", file=sys.stderr)

# A scheduled profiler with a Python on_trace_ready: torch calls it with step_num 4.
ready = []


def on_ready(prof):
    ready.append(prof.step_num)
    path = os.path.join(tmp, f"win{prof.step_num}.pt.trace.json")
    prof.export_chrome_trace(path)


@ks.range("decorated")
def work(i):
    with ks.range("inner", args={"i": i, "shape": [2, 3]}):
        ks.counter("loss", 1.0 / (i + 1))
    return i * 2


prof = ks.profile(schedule=ks.schedule(wait=1, warmup=1, active=2, repeat=1), on_trace_ready=on_ready,
                  profile_memory=True)
prof.add_metadata("owner", "python test")
with prof:
    for i in range(6):
        check(work(i) == i * 2, "decorated function result")
        prof.step()
check(ready == [4], f"on_trace_ready at {ready}, torch calls it at [4]")
ev = events_of(os.path.join(tmp, "win4.pt.trace.json"))
n = names(ev)
check(n.count("ProfilerStep#2") == 1 and n.count("ProfilerStep#3") == 1, "steps 2 and 3 recorded")
check(n.count("ProfilerStep#1") == 0 and n.count("ProfilerStep#4") == 0, "only the active steps")
check(n.count("decorated") == 2 and n.count("inner") == 2, f"ranges recorded twice, got {n}")
inner = [e for e in ev if e.get("name") == "inner"][0]
check(inner["args"] == {"i": 2, "shape": [2, 3]} or inner["args"] == {"i": 3, "shape": [2, 3]},
      f"range args {inner.get('args')}")
check(len([e for e in ev if e.get("ph") == "C"]) == 2, "two counter samples")

check(not any("Call stack" in e.get("args", {}) for e in ev), "no Call stack without with_stack")

# with_stack: ranges record the Python stack they were entered from, innermost first, with frames
# named as torch names them; the package's own frames (the decorator's wrapper) are left out.
lines = {}


def stack_leaf():
    lines["leaf"] = sys._getframe().f_lineno + 1
    with ks.range("leaf"):
        time.sleep(0.002)  # self time for export-stacks


def stack_caller():
    lines["caller"] = sys._getframe().f_lineno + 1
    stack_leaf()


@ks.range("decorated_stack")
def decorated_stack():
    pass


with ks.profile(with_stack=True) as ps:
    lines["module"] = sys._getframe().f_lineno + 1
    stack_caller()
    lines["decorated"] = sys._getframe().f_lineno + 1
    decorated_stack()
    with ks.range("stack_args", args={"k": 1}):
        pass
stack_trace = os.environ.get("KS_PY_STACK_TRACE") or os.path.join(tmp, "stack.pt.trace.json")
ps.export_chrome_trace(stack_trace)
ev = events_of(stack_trace)
by_name = {e["name"]: e for e in ev if e.get("ph") == "X"}
frames = by_name["leaf"]["args"].get("Call stack", "").split(";")
check(frames[:3] == [f"{__file__}({lines['leaf']}): stack_leaf", f"{__file__}({lines['caller']}): stack_caller",
                     f"{__file__}({lines['module']}): <module>"], f"leaf stack {frames}")
frames = by_name["decorated_stack"]["args"].get("Call stack", "").split(";")
check(frames == [f"{__file__}({lines['decorated']}): <module>"], f"decorated stack {frames}")
args = by_name["stack_args"]["args"]
check(list(args) == ["k", "Call stack"] and args["k"] == 1, f"args with a stack {args}")
package_dir = os.path.dirname(os.path.abspath(ks.__file__))
check(not any(f.startswith(package_dir) for f in args["Call stack"].split(";")), "package frames left out")
check(json.load(open(stack_trace)).get("with_stack") == 1, "with_stack in the trace metadata")
check(not ks.ranges._with_stack, "ranges stop building stacks after the profile")

# tensorboard_trace_handler names files like torch.
logdir = os.path.join(tmp, "tb", "run")
with ks.profile(schedule=ks.schedule(wait=0, warmup=1, active=1, repeat=2),
                on_trace_ready=ks.tensorboard_trace_handler(logdir, "w0", use_gzip=True)) as p2:
    for i in range(4):
        with ks.range("tb_step"):
            pass
        p2.step()
files = sorted(os.listdir(logdir))
check(len(files) == 2, f"two trace files, got {files}")
for f in files:
    parts = f.split(".")
    check(parts[0] == "w0" and len(parts[1]) == 19 and parts[1].isdigit() and f.endswith(".pt.trace.json.gz"),
          f"file name {f}")
    check("tb_step" in names(events_of(os.path.join(logdir, f))), "tb_step in window")

# Ranges from several threads land on their own rows.
with ks.profile() as p3:
    def thread_work(k):
        ks.set_thread_name(f"py-{k}")
        for _ in range(20):
            with ks.range(f"t{k}"):
                pass
    ts = [threading.Thread(target=thread_work, args=(k,)) for k in range(4)]
    [t.start() for t in ts]
    [t.join() for t in ts]
out = os.path.join(tmp, "threads.pt.trace.json")
p3.export_chrome_trace(out)
ev = events_of(out)
for k in range(4):
    tids = {e["tid"] for e in ev if e.get("ph") == "X" and e["name"] == f"t{k}"}
    check(len(tids) == 1, f"thread {k} ranges on one row")
check(any(e.get("ph") == "M" and e["name"] == "thread_name" and "(py-0)" in e["args"]["name"] for e in ev),
      "thread name recorded")

# Results: key_averages().table() is what `kinetoscope summary` prints for the exported file.
with ks.profile(record_shapes=True, profile_memory=True) as p4:
    blocks = []
    for i in range(6):
        with ks.range("forward"):
            with ks.range("aten::mm", args={"Input Dims": [[8, 16], [16, 4 + i % 2]],
                                            "Call stack": "model.py(12): mm;train.py(3): <module>"}):
                time.sleep(0.001)
            with ks.range("aten::empty"):
                ks.malloc(0x1000 + i, 1 << 20)
                blocks.append(0x1000 + i)
    for b in blocks:
        ks.free(b)
out = os.path.join(tmp, "results.pt.trace.json")
p4.export_chrome_trace(out)
table = p4.key_averages().table(sort_by="self_cpu_time_total", row_limit=-1)
kbin = os.environ.get("KS_BIN")
if kbin:
    import subprocess
    cli = subprocess.run([kbin, "summary", "--sort-by", "self_cpu_time_total", "--row-limit", "-1", out],
                         capture_output=True, text=True)
    check(cli.returncode == 0 and cli.stdout == table, "table() equals the summary of the exported file:\n"
          + table + "\n---\n" + cli.stdout + cli.stderr)
check("aten::mm" in table and "Self CPU Mem" in table, "table has the ops and memory columns")
by_shape = p4.key_averages(group_by_input_shape=True).table()
check(by_shape.count("aten::mm") == 2 and "[[8, 16], [16, 5]]" in by_shape, "grouped by input shape")
check("Source Location" in p4.key_averages(group_by_stack_n=1).table(), "grouped by stack")
stacks_path = os.path.join(tmp, "stacks.txt")
p4.export_stacks(stacks_path)
lines = open(stacks_path).read().splitlines()
check(len(lines) == 6 and all(l.startswith("train.py(3):_<module>;model.py(12):_mm ") for l in lines),
      f"export_stacks lines {lines[:2]}")
mem_path = os.path.join(tmp, "memory.json")
p4.export_memory_timeline(mem_path)
mem = json.load(open(mem_path))
check(len(mem) == 2 and max(sum(row) for row in mem[1]) >= 6 << 20, "memory timeline peak")
try:
    p4.export_stacks(stacks_path, metric="bogus")
    check(False, "bad metric accepted")
except ks.KinetoscopeError as e:
    check("metric should be one of" in str(e), f"bad metric message: {e}")

# Errors surface as exceptions.
try:
    ks.profile(activities=["tpu"])
    check(False, "unknown activity accepted")
except ks.KinetoscopeError as e:
    check("tpu" in str(e), f"error names the activity: {e}")
a = ks.profile()
b = ks.profile()
a.start()
try:
    b.start()
    check(False, "two profilers recording at once")
except ks.KinetoscopeError:
    pass
a.stop()
gpu = ks.profile(activities=["cpu", "cuda"])
with gpu:
    pass
check(any("CUDA" in s for s in gpu.status()), f"CUDA status reported: {gpu.status()}")

# Benchmark helpers.
with ks.timeit(log=False) as t:
    time.sleep(0.02)
check(t.duration >= 0.019, f"timeit duration {t.duration}")


@ks.profileit()
def allocate(mb):
    return bytearray(mb << 20)


stats = []
for mb in (8, 16, 32):
    out, s = allocate(mb)
    check(len(out) == mb << 20, "profileit result")
    stats.append(s)
check(stats[2].peak_python >= 32 << 20, f"python peak {stats[2].peak_python}")
summary = ks.get_stats_summary(stats)
check(abs(summary.time_mean - sum(s.time for s in stats) / 3) < 1e-12, "summary mean")
check(summary.peak_python_max == max(s.peak_python for s in stats), "summary max")
csv_path = os.path.join(tmp, "stats.csv")
ks.write_csv(csv_path, stats, labels=["8MB", "16MB", "32MB"])
rows = list(csv.DictReader(open(csv_path)))
check(len(rows) == 3 and rows[2]["name"] == "32MB" and float(rows[2]["time"]) == stats[2].time, "CSV rows")

# torch.profiler's API (works without torch): any schedule callable, record_function as decorator
# and context manager, events()/key_averages() as lists, total_average, torch's warnings/errors.
import warnings  # noqa: E402

calls = []


def my_schedule(step):
    calls.append(step)
    # After the window, nothing: a new warmup would start a new (empty) window at stop(), as in torch.
    if step >= 3:
        return ks.ProfilerAction.NONE
    return [ks.ProfilerAction.WARMUP, ks.ProfilerAction.RECORD, ks.ProfilerAction.RECORD_AND_SAVE][step]


@ks.record_function("decorated")
def decorated():
    time.sleep(0.001)


windows = []
with ks.profile(activities=[ks.ProfilerActivity.CPU], schedule=my_schedule,
                on_trace_ready=lambda p: windows.append(p.step_num)) as p5:
    for _ in range(3):
        with ks.record_function("ctx", args="a=1"):
            decorated()
        p5.step()
check(calls[:4] == [0, 1, 2, 3], f"custom schedule calls {calls}")
check(windows == [3], f"custom schedule windows {windows}")
ka = p5.key_averages()
counts = {e.key: e.count for e in ka}
check(counts.get("decorated") == 2 and counts.get("ctx") == 2, f"key_averages counts {counts}")
check(isinstance(ka, list) and ka.total_average().count == sum(e.count for e in ka), "total_average")
check(abs(ka.self_cpu_time_total - sum(e.self_cpu_time_total for e in ka)) < 1e-6, "self_cpu_time_total")
check("decorated" in ka.table(sort_by="cpu_time_total", row_limit=5), "EventList.table")
evs = p5.events()
check(sum(1 for e in evs if e.name == "decorated") == 2, "events()")
check(all(e.cpu_time_total >= e.self_cpu_time_total for e in evs), "event times")
p5.export_stacks(os.path.join(tmp, "p5.stacks"))


def bad_schedule(step):
    raise KeyError("from the schedule")


try:
    with ks.profile(schedule=bad_schedule):
        pass
    check(False, "a schedule's exception is lost")
except KeyError:
    pass
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    ks.schedule(wait=1, warmup=0, active=1)
    ks.profile(use_cuda=False)
check(["warmup" in str(x.message) for x in w] == [True, False], f"torch's warnings: {[str(x.message) for x in w]}")
try:
    ks.schedule(wait=0, warmup=1, active=0)
    check(False, "active=0 accepted")
except AssertionError as e:
    check(str(e) == "Invalid profiler schedule arguments", str(e))
check(ks.ProfilerActivity.CPU in ks.supported_activities(), "supported_activities")

print("python module: %d failures" % len(failures))
sys.exit(1 if failures else 0)
