"""The running torch's whole torch.profiler surface on kinetoscope (run by test_torch_surface.sh,
argv[1]: a scratch directory).

1. Names: every name of torch.profiler (its __all__ and the other public names that are profiler
   objects), every member of its enums, every public attribute of torch.profiler.profile (class and
   instance) exists on kinetoscope / kinetoscope.profile; torch's own objects are re-exported as
   the same objects; every argument torch's profile, its methods, schedule, record_function and
   tensorboard_trace_handler accept, kinetoscope's accept (positional ones in torch's order).
2. Behaviour of what Kinetoscope implements: trace ids per cycle (and in the trace), the three
   explicit phases, toggle_collection_dynamic (against torch's own result where torch has it),
   wait_for_exports, current_action (against torch's), KinetoStepTracker counting (against
   torch's), the execution trace observer while Kinetoscope records, and torch 2.x's newer
   arguments.
Prints one line per check group; exits 1 listing every failure.
"""
import collections
import inspect
import json
import os
import re
import sys
import warnings

import torch
import torch.profiler as tp

import kinetoscope as ks

scratch = sys.argv[1]
failures = []
TORCH_MAJOR = int(torch.__version__.split(".")[0])


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)
    return ok


def trace_of(prof, name):
    path = os.path.join(scratch, name)
    prof.export_chrome_trace(path)
    return json.load(open(path))


model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))
x = torch.randn(4, 8)


def train_step():
    model(x).sum().backward()


# --- 1. Names -------------------------------------------------------------------------------------

# torch.profiler's own names: its __all__, and the public names whose objects are the profiler's
# (RecordScope, itt, KinetoStepTracker, the profiler submodule). Its __init__ also imports names for
# its own use (os, typing's Any/TypeVarTuple/Unpack, torch.optim's Optimizer and
# register_optimizer_step_post_hook, torch._environment's is_fbcode): those are not the profiler's.
PROFILER_MODULES = ("torch.profiler", "torch.autograd.profiler", "torch._C._profiler", "torch._C._autograd")


def is_profilers(obj):
    if inspect.ismodule(obj):
        return obj.__name__.startswith("torch.profiler.")
    return str(getattr(obj, "__module__", "")).startswith(PROFILER_MODULES)


public = [n for n in dir(tp) if not n.startswith("_")]
names = sorted(set(tp.__all__) | {n for n in public if is_profilers(getattr(tp, n))})
incidental = sorted(set(public) - set(names))
missing = [n for n in names if not hasattr(ks, n)]
check(not missing, f"kinetoscope lacks torch.profiler's {missing}")
check(set(names) <= set(dir(ks)), f"dir(kinetoscope) lacks {sorted(set(names) - set(dir(ks)))}")
# Torch's own objects, independent of the recorder: re-exported, the very same objects.
REEXPORTED = {"DeviceType", "ExecutionGraphObserver", "ExecutionTraceObserver", "KinetoStepTracker", "RecordScope",
              "itt", "kineto_available"}
# Kinetoscope's own: they record (or configure recording) into libkinetoscope.
IMPLEMENTED = {"profile", "schedule", "record_function", "tensorboard_trace_handler", "supported_activities",
               "ProfilerAction", "ProfilerActivity", "profiler"}
for n in names:
    if n in REEXPORTED:
        check(getattr(ks, n, None) is getattr(tp, n), f"kinetoscope.{n} is not torch.profiler.{n}")
    else:
        check(n in IMPLEMENTED, f"torch.profiler.{n} is neither re-exported nor implemented by kinetoscope "
                                "(a name new in this torch: decide which)")
check(inspect.ismodule(ks.profiler) and hasattr(ks.profiler, "profile"), "kinetoscope.profiler is not the module")
for enum_name in ("ProfilerAction", "ProfilerActivity"):
    theirs = set(getattr(tp, enum_name).__members__)
    ours = set(getattr(ks, enum_name).__members__)
    check(theirs <= ours, f"kinetoscope.{enum_name} lacks members {sorted(theirs - ours)}")

# profile's public attributes: the class's (methods, properties) and those of an instance.
classes = [tp.profile] + ([tp.profiler._KinetoProfile] if hasattr(tp.profiler, "_KinetoProfile") else [])
class_attrs = sorted({a for c in classes for a in dir(c) if not a.startswith("_")})
missing = [a for a in class_attrs if not hasattr(ks.profile, a)]
check(not missing, f"kinetoscope.profile lacks {missing}")
# Instance attributes that are torch's own machinery, with no counterpart in a profiler that
# records without it: its autograd profiler object, its Python state machine (the action map, the
# open ProfilerStep record_function), the MemoryProfileTimeline export_memory_timeline builds from
# Kineto's results, and inductor's cudagraphs flag read for Kineto's CUPTI workaround.
TORCH_MACHINERY = {"profiler", "action_map", "step_rec_fn", "mem_tl", "has_cudagraphs"}
theirs = tp.profile()
ours = ks.profile()
inst_attrs = sorted(a for a in vars(theirs) if not a.startswith("_") and a not in TORCH_MACHINERY)
missing = [a for a in inst_attrs if not hasattr(ours, a)]
check(not missing, f"a kinetoscope.profile instance lacks {missing}")
for a in ("record_shapes", "profile_memory", "with_stack", "with_flops", "with_modules", "step_num",
          "on_trace_ready", "experimental_config", "execution_trace_observer", "acc_events",
          "custom_trace_id_callback", "post_processing_timeout_s", "record_steps", "preset_metadata"):
    if hasattr(theirs, a):
        check(getattr(theirs, a) == getattr(ours, a), f"profile().{a}: torch {getattr(theirs, a)!r}, "
                                                      f"kinetoscope {getattr(ours, a)!r}")
check(theirs.current_action.name == ours.current_action.name, "profile().current_action differs")
del theirs, ours


def params(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    ps = [p for p in sig.parameters.values() if p.name != "self"]
    positional = [p.name for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return positional, {p.name for p in ps if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


def check_signature(label, theirs, ours):
    t, o = params(theirs), params(ours)
    if t is None:
        return
    if not check(o is not None, f"{label}: kinetoscope's has no signature"):
        return
    check(t[1] <= o[1], f"{label}: kinetoscope's does not take {sorted(t[1] - o[1])}")
    check(o[0][:len(t[0])] == t[0], f"{label}: positional arguments {o[0]}, torch's {t[0]}")


check_signature("profile()", tp.profile.__init__, ks.profile.__init__)
for a in class_attrs:
    theirs = inspect.getattr_static(tp.profile, a, None)
    if callable(theirs) and not isinstance(theirs, type):
        check_signature(f"profile.{a}", theirs, getattr(ks.profile, a))
check_signature("schedule()", tp.schedule, ks.schedule.__init__)
check_signature("record_function()", tp.record_function.__init__, ks.record_function.__init__)
check_signature("tensorboard_trace_handler()", tp.tensorboard_trace_handler, ks.tensorboard_trace_handler.__init__)
check_signature("supported_activities()", tp.supported_activities, ks.supported_activities)
print(f"names: {len(names)} of torch.profiler ({len(REEXPORTED & set(names))} re-exported), "
      f"{len(class_attrs)} of profile, {len(inst_attrs)} instance attributes; not the profiler's: {incidental}")

# The re-exported objects work as torch's.
check(ks.kineto_available() == tp.kineto_available(), "kineto_available()")
check(ks.RecordScope.USER_SCOPE == tp.RecordScope.USER_SCOPE and ks.DeviceType.CPU == tp.DeviceType.CPU,
      "RecordScope / DeviceType values")
check(isinstance(ks.itt.is_available(), bool), "itt.is_available()")

# --- 2. Trace ids, current_action: one schedule under torch's profiler and ours ----------------------


def run_schedule(mod, **extra):
    seen, ready = [], []

    def on_ready(p):
        tid = p.get_trace_id() if hasattr(p, "get_trace_id") else None
        trace = None
        if mod is ks:
            trace = trace_of(p, f"cycle{len(ready)}.json").get("trace_id")
        ready.append((p.step_num, tid, trace))
    with mod.profile(activities=[mod.ProfilerActivity.CPU], on_trace_ready=on_ready,
                     schedule=mod.schedule(wait=1, warmup=1, active=2, repeat=2), **extra) as p:
        for step in range(9):
            seen.append((p.current_action.name, p.get_trace_id() if hasattr(p, "get_trace_id") else None))
            train_step()
            p.step()
    return seen, ready, p


t_seen, t_ready, _ = run_schedule(tp)
k_seen, k_ready, kp = run_schedule(ks)
check([a for a, _ in t_seen] == [a for a, _ in k_seen],
      f"current_action per step: torch {[a for a, _ in t_seen]}, kinetoscope {[a for a, _ in k_seen]}")
check([r[0] for r in t_ready] == [r[0] for r in k_ready],
      f"on_trace_ready steps: torch {[r[0] for r in t_ready]}, kinetoscope {[r[0] for r in k_ready]}")


def id_pattern(seen):
    """Which steps share a trace id: None before the first cycle, then a new letter per new id."""
    letters, out = {}, []
    for _, tid in seen:
        out.append(None if tid is None else letters.setdefault(tid, "ABCDEFGH"[len(letters)]))
    return out


k_ids = [tid for _, tid in k_seen]
check(id_pattern(k_seen) == [None, "A", "A", "A", "A", "B", "B", "B", "B"],
      f"trace ids per step: {id_pattern(k_seen)} (a new id as each cycle starts its warmup)")
if hasattr(tp.profile, "get_trace_id"):
    check(id_pattern(t_seen) == id_pattern(k_seen), f"trace ids per step: torch {id_pattern(t_seen)}, "
                                                    f"kinetoscope {id_pattern(k_seen)}")
check(all(tid is None or re.fullmatch(r"[0-9A-F]{32}", tid) for tid in k_ids), f"trace id format: {k_ids}")
check([r[1] for r in k_ready] == [k_ids[1], k_ids[5]], f"get_trace_id() in on_trace_ready: {k_ready}")
check([r[2] for r in k_ready] == [k_ids[1], k_ids[5]],
      f"the exported traces' trace_id {[r[2] for r in k_ready]}, the cycles' ids {[k_ids[1], k_ids[5]]}")
check(kp.get_trace_id() == k_ids[5], "get_trace_id() after the profile is the last cycle's")

calls = []


def custom_id():
    calls.append(1)
    return f"run-{len(calls)}"


with ks.profile(custom_trace_id_callback=custom_id) as p:
    check(p.get_trace_id() == "run-1", f"custom trace id: {p.get_trace_id()}")
    train_step()
check(trace_of(p, "custom.json").get("trace_id") == "run-1", "custom trace id not in the trace")
p.set_custom_trace_id_callback(lambda: "second")
check(p.get_trace_id() == "run-1", "set_custom_trace_id_callback changed the current cycle's id")
p.start()
train_step()
p.stop()
check(p.get_trace_id() == "second" and len(calls) == 1, f"next cycle's id: {p.get_trace_id()}, {len(calls)} calls")
check(trace_of(p, "second.json").get("trace_id") == "second", "the second cycle's trace_id")
check(ks.profile().get_trace_id() is None, "get_trace_id() before any cycle is not None")
print(f"trace ids: {len(set(k_ids) - {None})} cycles, ids in on_trace_ready and in the traces; current_action "
      f"as torch's over {len(k_seen)} steps")

# --- 3. Explicit phases -----------------------------------------------------------------------------

ready = []
p = ks.profile(schedule=ks.schedule(wait=5, warmup=1, active=1), on_trace_ready=lambda q: ready.append(1))
try:
    p.start_trace()
    check(False, "start_trace() before prepare_trace() did not raise")
except AssertionError:
    pass
p.prepare_trace()
tid = p.get_trace_id()
check(tid is not None, "prepare_trace() made no trace id")
torch.tanh(x)  # prepared, not recording
p.start_trace()
torch.sigmoid(x)
with ks.record_function("phase scope"):
    torch.relu(x)
p.stop_trace()
torch.sin(x)  # stopped
counts = collections.Counter(e.name for e in p.events())
check(counts["aten::sigmoid"] == 1 and counts["aten::relu"] == 1 and counts["phase scope"] == 1,
      f"ops between start_trace and stop_trace: {dict(counts)}")
check("aten::tanh" not in counts and "aten::sin" not in counts, f"ops outside the trace recorded: {dict(counts)}")
check(not ready, "stop_trace() called on_trace_ready (torch's does not)")
check(trace_of(p, "phases.json").get("trace_id") == tid, "the explicit trace's trace_id")
# The schedule (5 waiting steps) is not what the explicit phases follow, and they can run again.
p.start_trace()
torch.cos(x)
p.stop_trace()
check([e.name for e in p.events()] == ["aten::cos"], f"second start_trace/stop_trace: {[e.name for e in p.events()]}")
print("explicit phases: prepare_trace (id, not recording), start_trace..stop_trace recorded, no on_trace_ready")

# --- 4. toggle_collection_dynamic -----------------------------------------------------------------


def toggled(mod):
    """Ops of CPU, toggled off in the middle; torch's record_function ranges inside."""
    with mod.profile(activities=[mod.ProfilerActivity.CPU]) as p:
        torch.mm(x.t(), x)
        p.toggle_collection_dynamic(False, [mod.ProfilerActivity.CPU])
        torch.relu(x)
        with tp.record_function("hidden scope"):
            torch.sigmoid(x)
        p.toggle_collection_dynamic(True, [mod.ProfilerActivity.CPU])
        torch.tanh(x)
    return collections.Counter(e.name for e in p.events())


k_counts = toggled(ks)
if hasattr(tp.profile, "toggle_collection_dynamic"):
    t_counts = toggled(tp)
    check(t_counts == k_counts, f"toggled: torch {dict(t_counts)}, kinetoscope {dict(k_counts)}")
check(k_counts["aten::mm"] == 1 and k_counts["aten::tanh"] == 1, f"ops outside the toggle: {dict(k_counts)}")
check(not {"aten::relu", "aten::sigmoid", "hidden scope"} & set(k_counts), f"toggled off but recorded: {dict(k_counts)}")

# Kinetoscope's own record_function across the toggle: a range open before it ends where it ends,
# one opened while off records nothing and ends nothing else.
with ks.profile() as p:
    with ks.record_function("outer"):
        with ks.record_function("straddles"):
            torch.mm(x.t(), x)
            p.toggle_collection_dynamic(False, [ks.ProfilerActivity.CPU])
        torch.relu(x)
        with ks.record_function("opened while off"):
            p.toggle_collection_dynamic(True, [ks.ProfilerActivity.CPU])
            torch.tanh(x)
        torch.exp(x)
    torch.sin(x)
ev = {e["name"]: e for e in trace_of(p, "toggle.json")["traceEvents"] if e.get("ph") == "X"}
check("opened while off" not in ev and "aten::relu" not in ev, f"recorded while off: {sorted(ev)}")
if check({"outer", "straddles", "aten::tanh", "aten::exp", "aten::sin"} <= set(ev), f"ranges: {sorted(ev)}"):
    end = lambda n: ev[n]["ts"] + ev[n]["dur"]
    check(end("straddles") <= ev["aten::tanh"]["ts"], "the range open across the toggle did not end at its exit")
    check(end("outer") >= end("aten::exp") and end("outer") <= ev["aten::sin"]["ts"],
          "the enclosing range was ended by the one opened while off")
# nn.Module ranges (with_modules) stop with the toggle and come back with the same names: twice
# the ranges of one call.
def module_ranges(p, name):
    return collections.Counter(e["name"] for e in trace_of(p, name)["traceEvents"] if e.get("cat") == "python_function")


with ks.profile(with_modules=True) as p:
    model(x)
once = module_ranges(p, "modules_once.json")
with ks.profile(with_modules=True) as p:
    model(x)
    p.toggle_collection_dynamic(False, [ks.ProfilerActivity.CPU])
    model(x)
    p.toggle_collection_dynamic(True, [ks.ProfilerActivity.CPU])
    model(x)
modules = module_ranges(p, "toggle_modules.json")
check(once and modules == once + once, f"module ranges across the toggle: {dict(modules)}, one call: {dict(once)}")
# Off in one cycle, the next collects again (torch: a new profiler session each cycle).
cycles = []
with ks.profile(schedule=ks.schedule(wait=0, warmup=1, active=1, repeat=2),
                on_trace_ready=lambda q: cycles.append(collections.Counter(e.name for e in q.events()))) as p:
    for step in range(4):
        if step == 1:
            p.toggle_collection_dynamic(False, [ks.ProfilerActivity.CPU])
        torch.tanh(x)
        p.step()
check(len(cycles) == 2 and "aten::tanh" not in cycles[0] and cycles[1]["aten::tanh"] == 1,
      f"toggled off in the first cycle: {cycles}")
# Outside a recording window: nothing to pause, the window after records.
p = ks.profile()
p.toggle_collection_dynamic(False, [ks.ProfilerActivity.CPU])
with p:
    torch.tanh(x)
check([e.name for e in p.events()] == ["aten::tanh"], "a toggle before start() paused the window")
# Device activities cannot be paused: a warning, and CPU stays recorded.
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    with ks.profile(activities=[ks.ProfilerActivity.CPU, ks.ProfilerActivity.CUDA]) as p:
        p.toggle_collection_dynamic(False, [ks.ProfilerActivity.CUDA])
        torch.tanh(x)
check(any("CUDA activity cannot be paused" in str(m.message) for m in w), "no warning for a CUDA toggle")
check([e.name for e in p.events()] == ["aten::tanh"], "a CUDA toggle paused CPU")
print(f"toggle_collection_dynamic: {dict(k_counts)}"
      + (" (as torch's)" if hasattr(tp.profile, "toggle_collection_dynamic") else ""))

# --- 5. Exports, step tracking, execution trace ---------------------------------------------------

logdir = os.path.join(scratch, "tb")
with ks.profile(schedule=ks.schedule(wait=0, warmup=1, active=1, repeat=2),
                on_trace_ready=ks.tensorboard_trace_handler(logdir, use_python_export=True)) as p:
    for step in range(4):
        train_step()
        p.step()
check(p.wait_for_exports() is None and p.take_pending_cupti_export() is None, "wait_for_exports / take_pending")
files = sorted(os.listdir(logdir))
check(len(files) == 2 and all(json.load(open(os.path.join(logdir, f)))["traceEvents"] for f in files),
      f"tensorboard files after wait_for_exports: {files}")
p.export_chrome_trace(os.path.join(scratch, "py_export.json"), use_python_export=True)
check(json.load(open(os.path.join(scratch, "py_export.json")))["traceEvents"], "export_chrome_trace(use_python_export)")

tracker = getattr(tp, "KinetoStepTracker", None)
if tracker is not None:
    def tracked(mod, daemon):
        """The tracker's requesters inside the profile (their counts from the step the profile
        started at) and after it, and the steps it counted."""
        if daemon:
            os.environ["KINETO_USE_DAEMON"] = "1"
        try:
            before = tracker.current_step()
            with mod.profile(activities=[mod.ProfilerActivity.CPU]) as p:
                for step in range(3):
                    p.step()
                inside = {k: v - before for k, v in tracker._step_dict.items()}
            return inside, dict(tracker._step_dict), tracker.current_step() - before
        finally:
            os.environ.pop("KINETO_USE_DAEMON", None)
    for daemon in (False, True):
        t, k = tracked(tp, daemon), tracked(ks, daemon)
        check(t == k, f"KinetoStepTracker (KINETO_USE_DAEMON={int(daemon)}): torch {t}, kinetoscope {k}")
    print(f"KinetoStepTracker: as torch's profile ({tracked(ks, True)[2]} steps counted for Kineto's daemon)")

et_class = getattr(tp, "ExecutionTraceObserver", None) or getattr(tp, "ExecutionGraphObserver")
et_path = os.path.join(scratch, "run.et.json")
et = et_class()
et.register_callback(et_path)
with ks.profile(execution_trace_observer=et, schedule=ks.schedule(wait=1, warmup=1, active=2)) as p:
    for step in range(4):
        train_step()
        p.step()
if not hasattr(et, "cleanup"):
    et.unregister_callback()  # torch 1.13: the profile has no cleanup() to call; this writes the file
nodes = collections.Counter(n["name"] for n in json.load(open(et_path))["nodes"])
ops = collections.Counter(e["name"] for e in trace_of(p, "et_window.json")["traceEvents"] if e.get("ph") == "X")
check(nodes["aten::addmm"] == 4 and ops["aten::addmm"] == 4,
      f"execution trace while kinetoscope records: {nodes['aten::addmm']} aten::addmm, the window {ops['aten::addmm']}")
print(f"{et_class.__name__}: {sum(nodes.values())} nodes of the 2 recorded steps")
if hasattr(et_class, "build_execution_trace_obs_from_env"):
    os.environ["ENABLE_PYTORCH_EXECUTION_TRACE"] = "1"
    try:
        p = ks.profile()
    finally:
        del os.environ["ENABLE_PYTORCH_EXECUTION_TRACE"]
    check(isinstance(p.execution_trace_observer, et_class), "ENABLE_PYTORCH_EXECUTION_TRACE=1 made no observer")
    with p:
        train_step()
    path = p.execution_trace_observer.get_output_file_path()
    check(path and collections.Counter(n["name"] for n in json.load(open(path))["nodes"])["aten::addmm"] == 2,
          f"the observer from the environment wrote {path}")
    if path:
        os.unlink(path)

# --- 6. torch 2.x's arguments -------------------------------------------------------------------------

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    with ks.profile(acc_events=True, post_processing_timeout_s=5.0,
                    activities=[ks.ProfilerActivity.CPU, {ks.ProfilerActivity.CUDA: []}, ks.ProfilerActivity.MTIA]) as p:
        torch.tanh(x)
    rows = p.key_averages(group_by_overload_name=True, include_python_functions=True)
messages = " | ".join(str(m.message) for m in w)
check("acc_events" in messages and "overload" in messages and "python_function" in messages,
      f"warnings for what is accepted but not done: {messages}")
check([r.key for r in rows] == ["aten::tanh"], f"key_averages(group_by_overload_name=...): {[r.key for r in rows]}")
check(p.activities == {"cpu", "cuda", "mtia"} and p.activity_filters == {"cuda": set()}, f"activities {p.activities}")
check(any(s.startswith("MTIA: not available") for s in p.status()) and not any("CUDA" in s for s in p.status()),
      f"status() for MTIA and an empty CUDA filter: {p.status()}")
for bad, exc in ((dict(post_processing_timeout_s=-1), ValueError),
                 (dict(activities=[ks.ProfilerActivity.CPU, {ks.ProfilerActivity.CPU: []}]), ValueError),
                 (dict(schedule=lambda step: ks.ProfilerAction.DEVICE_STOPPED), ValueError)):
    try:
        ks.profile(**bad)
        check(False, f"profile({bad}) did not raise {exc.__name__}")
    except exc:
        pass
print("torch 2.x arguments: acc_events, post_processing_timeout_s, activity filters, MTIA, DEVICE_STOPPED")

if failures:
    print(f"{len(failures)} failures", file=sys.stderr)
    sys.exit(1)
print(f"surface of torch {torch.__version__}: ok")
