"""A profiler with torch.profiler.profile's arguments and methods, recording into libkinetoscope.

With torch imported and libkinetoscope_torch.so present (kinetoscope.torchobserver), torch's
operators, autograd functions and record_function ranges are recorded natively; without them only
Kinetoscope's own ranges (record_function, range) are.

The surface is that of the newest torch.profiler.profile (docs/torch-observer.md, "The torch.profiler
surface"), whichever torch runs: a script written for torch 2.x finds every method and argument
under torch 1.13 too, and one written for 1.13 finds nothing missing.
"""
import json
import os
import sys
import threading
import uuid
from warnings import warn

from . import _lib
from . import ranges as _ranges
from . import torchobserver as _observer
from ._lib import check, lib, take_string
from .actions import (ProfilerAction, ProfilerActivity, action_value, activity_name, schedule,
                      supported_activities)
from .results import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler"]

# The requester name torch's profile gives its steps in KinetoStepTracker.
PROFILER_STEP_NAME = "ProfilerStep"
# torch 2.x's activities that libkinetoscope has no collector for: reported by status(), not
# passed to the library, which rejects names it does not know.
_UNRECORDED_ACTIVITIES = ("hpu", "mtia", "privateuse1")


def _step_tracker():
    """torch's KinetoStepTracker (torch >= 2.0) when torch is imported, else None."""
    return getattr(sys.modules.get("torch.autograd.profiler"), "KinetoStepTracker", None)


def _step_hook_on():
    """Whether torch's profile.step() counts its step in KinetoStepTracker: torch 2.14 does it only
    for Kineto's daemon (dynolog on-demand traces), as its optimizer step hook."""
    if os.environ.get("KINETO_USE_DAEMON", ""):
        return True
    env = sys.modules.get("torch._environment")
    return bool(env is not None and env.is_fbcode() and os.environ.get("KINETO_FORCE_STEP_HOOK", ""))


def _live():
    """The live session of `kinetoscope record` / Run > Launch in this process (its bootstrap), or None."""
    return getattr(sys.modules.get("_kinetoscope_live"), "_live", None)


def _parse_activities(activities):
    """torch 2.x's activities: each item an activity, or a dict {activity: [activity type names]}
    collecting only those types of that group ([]: none of them). Returns (names, filters)."""
    names, filters = set(), {}
    for item in activities:
        groups = item.items() if isinstance(item, dict) else [(item, None)]
        for act, types in groups:
            name = activity_name(act)
            if types is not None:
                if name in names:
                    raise ValueError(f"Activity {act} specified more than once")
                filters[name] = set(types)
            elif name in filters:
                raise ValueError(f"Activity {act} specified more than once")
            names.add(name)
    return names, filters


class tensorboard_trace_handler:  # noqa: N801
    """Writes <dir>/<worker>.<time_ns>.pt.trace.json[.gz] when a window is ready (natively; called
    with a profile it does the same from Python, like torch's handler). use_python_export (torch
    2.x: torch's Python exporter instead of Kineto's) is accepted: Kinetoscope has one exporter."""

    def __init__(self, dir_name, worker_name=None, use_gzip=False, use_python_export=False):
        self.dir_name = dir_name
        self.worker_name = worker_name
        self.use_gzip = use_gzip
        self.use_python_export = use_python_export

    def __call__(self, prof):
        import socket
        import time
        os.makedirs(self.dir_name, exist_ok=True)
        worker = self.worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns()}.pt.trace.json" + (".gz" if self.use_gzip else "")
        prof.export_chrome_trace(os.path.join(self.dir_name, name))


class record_function(_ranges.range):  # noqa: N801
    """torch.profiler.record_function(name, args=None): a context manager and decorator. args (a
    string, as torch takes it) is kept as the range's "args" arg.

    Like torch's, it records nothing while a profile has CPU collection toggled off
    (profile.toggle_collection_dynamic); each entry remembers whether it opened a range, so one
    entered before the toggle still ends and one entered during it ends nothing."""

    def __init__(self, name, args=None):
        super().__init__(name, {"args": args} if args is not None else None)

    def __enter__(self):
        opened = getattr(_scopes, "opened", None)
        if opened is None:
            opened = _scopes.opened = []
        opened.append(not _scopes_paused)
        if _scopes_paused:
            return self
        return super().__enter__()

    def __exit__(self, *exc):
        opened = getattr(_scopes, "opened", None)
        if opened and not opened.pop():
            return False
        return super().__exit__(*exc)


# CPU collection toggled off by a profile: record_function ranges are not opened (per thread, which
# of the open record_function entries opened a range).
_scopes_paused = False
_scopes = threading.local()


def _pause_scopes(on):
    global _scopes_paused
    _scopes_paused = bool(on)


class profile:  # noqa: N801
    """torch.profiler.profile(activities, schedule, on_trace_ready, record_shapes, profile_memory,
    with_stack, with_flops, with_modules, experimental_config, execution_trace_observer, acc_events,
    custom_trace_id_callback, post_processing_timeout_s, use_cuda).

    schedule: kinetoscope.schedule (run natively) or any callable step -> ProfilerAction (ours or
    torch's, e.g. torch.profiler.schedule(...)). with_modules (or with_stack), with torch imported:
    every nn.Module call is a python_function range "nn.Module: <class>", as torch's Python tracer
    records it (with_stack: by libkinetoscope_torch's profile function, docs/torch-observer.md).
    experimental_config is accepted and not used. shape_sampling (ours): record input shapes of
    every n-th call of each operator. execution_trace_observer: torch's ExecutionTraceObserver
    (torch 2.x) or ExecutionGraphObserver (torch 1.13), registered by the caller; as torch does, it
    is started when each window starts recording and stopped when it stops, and on leaving the
    context manager its cleanup() (torch 2.x) is called; without one, torch 2.x's
    ENABLE_PYTORCH_EXECUTION_TRACE=1 makes one, as torch's profile does.

    activities: as in torch 2.x, an item may be {activity: [activity type names]}; an empty list
    leaves that activity out, a list of names records the whole activity (Kinetoscope's collectors
    do not filter by type; a warning says so). MTIA, HPU and PrivateUse1 have no collector here:
    status() says so. acc_events: accepted; results are those of the last cycle (a warning says
    so). post_processing_timeout_s: checked as torch checks it; Kinetoscope builds a window's
    results natively when it stops, there is no event parsing to cut short.
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None, use_cuda=None,
                 shape_sampling=1, op_filter=None):
        filters = {}
        if activities:
            acts, filters = _parse_activities(activities)
        else:
            acts = set(activity_name(a) for a in supported_activities())
        if use_cuda is not None:
            warn("use_cuda is deprecated, use activities argument instead")
            if use_cuda:
                acts.add("cuda")
            else:
                acts.discard("cuda")
        assert len(acts) > 0, "No valid profiler activities found"
        if post_processing_timeout_s is not None and post_processing_timeout_s < 0:
            raise ValueError("post_processing_timeout_s must be non-negative")
        self.activities = acts
        self.activity_filters = filters
        # Status lines of what the library cannot be asked for (status() adds them to its own).
        self._notes = []
        recorded = set()
        for name in sorted(acts):
            if name in _UNRECORDED_ACTIVITIES:
                self._notes.append(f"{name.upper()}: not available: Kinetoscope has no collector for it")
            elif name in filters and not filters[name]:
                pass  # {activity: []}: torch collects nothing of that group
            else:
                recorded.add(name)
                if filters.get(name):
                    warn(f"kinetoscope: every {name.upper()} activity is recorded; the activity type "
                         f"filter {sorted(filters[name])} is not applied")
        self.use_device = next((d for d in ("cuda", "xpu", "mtia", "hpu") if d in acts), None)
        self.record_shapes = bool(record_shapes)
        self.profile_memory = bool(profile_memory)
        self.with_stack = bool(with_stack)
        self.with_flops = bool(with_flops)
        self.with_modules = bool(with_modules)
        self.experimental_config = experimental_config
        self.acc_events = bool(acc_events)
        if self.acc_events:
            warn("kinetoscope: acc_events is not supported; events() and key_averages() give the "
                 "last profiling cycle")
        self.post_processing_timeout_s = post_processing_timeout_s
        self.custom_trace_id_callback = custom_trace_id_callback
        self.preset_metadata = {}
        self._observer_options = {"record_shapes": self.record_shapes or self.with_flops,
                                  "profile_memory": self.profile_memory,
                                  "with_stack": self.with_stack,
                                  "shape_sampling": int(shape_sampling)}
        if op_filter:
            self._observer_options.update(op_filter)
        opts = {
            "activities": sorted(recorded),
            "record_shapes": self.record_shapes,
            "profile_memory": self.profile_memory,
            "with_stack": self.with_stack,
            # Ranges pass the Python stack (ranges.python_stack); the interpreter's native frames
            # would say nothing.
            "native_stack": False,
            "with_flops": self.with_flops,
        }
        # The options of the schedule-less twin that prepare_trace/start_trace/stop_trace drive.
        self._opts_json = json.dumps(opts).encode("utf-8")
        self._schedule_cb = None
        self._schedule_error = None
        self._last_action = None  # what a callable schedule returned last (the driver calls it)
        self.record_steps = schedule is not None
        if isinstance(schedule, globals()["schedule"]):
            opts["schedule"] = schedule.params
            self._p = lib.ks_profiler_create(json.dumps(opts).encode("utf-8"))
        elif schedule is not None:
            if not callable(schedule):
                raise TypeError("schedule must be a callable taking the step number")

            def run_schedule(step, _user):
                try:
                    action = schedule(step)
                    value = action_value(action)
                    self._last_action = action
                    return value
                except BaseException as e:  # re-raised by step()/start() on the caller's side
                    self._schedule_error = e
                    return 0
            self._schedule_cb = _lib.SCHEDULE_FN(run_schedule)
            self._p = lib.ks_profiler_create_scheduled(json.dumps(opts).encode("utf-8"), self._schedule_cb, None)
        else:
            self._p = lib.ks_profiler_create(self._opts_json)
        if not self._p:
            raise _lib.KinetoscopeError(lib.ks_last_error().decode("utf-8", "replace"))
        self._raise_schedule_error()  # the driver asked a callable schedule for step 0 already
        self.schedule = schedule if schedule is not None else _default_schedule
        self.current_action = self._action(0)
        self._explicit_p = None  # created by prepare_trace
        self._results_p = self._p  # the handle whose window finished last
        self._trace_id = None
        self.on_trace_ready = on_trace_ready
        self._callback = None
        if isinstance(on_trace_ready, tensorboard_trace_handler):
            h = on_trace_ready
            check(lib.ks_profiler_set_tensorboard_handler(
                self._p, h.dir_name.encode("utf-8"), h.worker_name.encode("utf-8") if h.worker_name else None,
                1 if h.use_gzip else 0))
        elif on_trace_ready is not None:
            def trampoline(_handle, _user):
                on_trace_ready(self)
            self._callback = _lib.TRACE_READY(trampoline)  # kept alive as long as the profiler
            lib.ks_profiler_set_trace_ready(self._p, self._callback, None)
        self._observer_token = None
        self.observer_status = None
        self._running = False
        self._window_recording = False
        self._cpu_paused = False
        self._device_toggle_warned = False
        self._tagger = None
        self._modules = None
        if execution_trace_observer is None:
            # torch 2.x's profile makes one from ENABLE_PYTORCH_EXECUTION_TRACE=1 (a temporary file).
            et_class = getattr(sys.modules.get("torch.profiler"), "ExecutionTraceObserver", None)
            build = getattr(et_class, "build_execution_trace_obs_from_env", None)
            if build is not None:
                execution_trace_observer = build()
        self.execution_trace_observer = execution_trace_observer

        def on_window(handle, recording, _user):
            try:
                self._on_window(handle, bool(recording))
            except BaseException as e:  # re-raised by step()/start()/stop() on the caller's side
                self._schedule_error = self._schedule_error or e
        self._window_cb = _lib.WINDOW_FN(on_window)  # kept alive as long as the profiler
        lib.ks_profiler_set_window_callback(self._p, self._window_cb, None)
        # torch's profile counts its steps in KinetoStepTracker from here to __exit__.
        tracker = _step_tracker()
        if tracker is not None:
            tracker.init_step_count(PROFILER_STEP_NAME)

    def __del__(self):
        _observer.release(getattr(self, "_observer_token", None))
        for attr in ("_p", "_explicit_p"):
            p = getattr(self, attr, None)
            if p:
                lib.ks_profiler_destroy(p)
                setattr(self, attr, None)

    def _raise_schedule_error(self):
        e, self._schedule_error = self._schedule_error, None
        if e is not None:
            raise e

    # The schedule's action at a step, as torch keeps it in current_action: a kinetoscope.schedule
    # is asked again (it is a pure function), a callable schedule's answer is the one the driver got.
    def _action(self, step):
        if isinstance(self.schedule, globals()["schedule"]):
            return self.schedule(step)
        if self.schedule is _default_schedule:
            return ProfilerAction.RECORD
        return self._last_action

    def _transit(self, prev, cur):
        """torch's action map: a cycle is prepared (and gets its trace id) when the schedule moves
        from NONE or RECORD_AND_SAVE to WARMUP, RECORD or RECORD_AND_SAVE."""
        if action_value(prev) in (0, 3) and action_value(cur) in (1, 2, 3):
            self._new_trace_id()

    def _new_trace_id(self):
        cb = self.custom_trace_id_callback
        # torch's default: a random UUID as 32 upper-case hex digits.
        self._trace_id = cb() if cb else f"{uuid.uuid4().int:032X}"

    def _on_window(self, handle, recording):
        if recording:
            self._window_recording = True
            # A new cycle collects everything again, as torch's new profiler session does.
            self._resume_cpu()
            if self.execution_trace_observer is not None:
                self.execution_trace_observer.start()
        else:
            if self.execution_trace_observer is not None:
                self.execution_trace_observer.stop()
            self._window_recording = False
            self._results_p = handle
            if self._trace_id is not None:
                # Written into the window's trace as Kineto writes it: a top-level "trace_id".
                check(lib.ks_profiler_add_metadata(handle, b"trace_id", self._trace_id.encode("utf-8")))

    def _setup(self):
        """What torch does when it prepares a trace: the observer loaded (built on first use) and
        enabled, so that starting to record costs nothing more."""
        if "torch" in sys.modules and self._observer_token is None:
            self._observer_token, self.observer_status = _observer.acquire(self._observer_options)
            if self.profile_memory and self._observer_token is not None and self._tagger is None:
                from .memorytags import MemoryTagger
                self._tagger = MemoryTagger()

    def _begin(self):
        self._running = True
        _ranges._set_with_stack(self.with_stack)
        if self._tagger:
            self._tagger.start()
        self._start_modules()

    def _start_modules(self):
        native_modules = self.with_stack and _observer.stacks_record_modules()
        if (self.with_modules or self.with_stack) and "torch" in sys.modules and self._modules is None \
                and not native_modules:
            from .moduleranges import ModuleRanges
            self._modules = ModuleRanges(name_frames=self.with_stack and _observer.stacks_active())
            self._modules.start()

    def _end(self, handle):
        if self._running:
            self._running = False
            _ranges._set_with_stack(False)
        if self._cpu_paused:
            self._cpu_paused = False
            _pause_scopes(False)
        try:
            if self._modules:
                self._modules.stop()
                self._modules = None
            if self._tagger:
                self._tagger.stop()
                self._tagger = None
            check(lib.ks_profiler_stop(handle))
        finally:
            _observer.release(self._observer_token)
            self._observer_token = None
        self._raise_schedule_error()

    def start(self):
        live = _live()
        if live is not None:
            # As for torch's profile under the live bootstrap: the first step starts here.
            live.lib.ks_stream_step_origin()
        self._setup()
        check(lib.ks_profiler_start(self._p))
        self._raise_schedule_error()
        self._transit(ProfilerAction.NONE, self.current_action)
        self._begin()

    def stop(self):
        self._end(self._p)

    def step(self):
        # Tagged on both sides of the boundary: the window that ends and the one that may begin.
        if self._tagger:
            self._tagger.tag_state()
        prev = self.current_action
        check(lib.ks_profiler_step(self._p))
        self._raise_schedule_error()
        self.current_action = self._action(self.step_num)
        self._transit(prev, self.current_action)
        if self._tagger:
            self._tagger.tag_state()
        tracker = _step_tracker()
        if tracker is not None and _step_hook_on():
            tracker.increment_step(PROFILER_STEP_NAME)
        live = _live()
        if live is not None:
            # A live session counts this profile's steps as it counts torch's profile's (one
            # requester per profile, KinetoStepTracker's maximum over requesters).
            live.step("ProfilerStep#%x" % id(self))

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        tracker = _step_tracker()
        if tracker is not None:
            tracker.erase_step_count(PROFILER_STEP_NAME)
        cleanup = getattr(self.execution_trace_observer, "cleanup", None)
        if cleanup is not None:
            cleanup()
        return False

    # torch's three phases, for callers that drive them by hand: prepare (set up, not recording),
    # start (record), stop (the window is built; on_trace_ready is not called, as in torch). They
    # record one window from start_trace to stop_trace whatever the schedule, on a schedule-less
    # twin of this profile; the results are then that window's.
    def prepare_trace(self):
        if self._explicit_p is None:
            self._explicit_p = lib.ks_profiler_create(self._opts_json)
            if not self._explicit_p:
                raise _lib.KinetoscopeError(lib.ks_last_error().decode("utf-8", "replace"))
            lib.ks_profiler_set_window_callback(self._explicit_p, self._window_cb, None)
        self._setup()
        self._new_trace_id()

    def start_trace(self):
        if self._explicit_p is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        self._setup()  # again when a stop_trace released the observer
        check(lib.ks_profiler_start(self._explicit_p))
        self._raise_schedule_error()
        self._begin()

    def stop_trace(self):
        if self._explicit_p is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        self._end(self._explicit_p)

    def toggle_collection_dynamic(self, enable, activities):
        """Turns collection of activities off and on while a window records, as torch 2.x does.
        CPU: torch's operators, autograd functions, record_function ranges (torch's and ours) and
        the nn.Module ranges stop being recorded; Kinetoscope's own ranges, marks and counters and
        the ProfilerStep#N ranges are kept. The next window collects everything again. Device
        activities (CUDA, XPU) cannot be paused by Kinetoscope's collectors: they stay recorded
        and a warning says so."""
        names = {activity_name(a) for a in activities}
        if "cpu" in names:
            if enable:
                self._resume_cpu()
            else:
                self._pause_cpu()
        devices = sorted(n for n in names - {"cpu"} if n in self.activities)
        if devices and not enable and not self._device_toggle_warned:
            self._device_toggle_warned = True
            warn(f"kinetoscope: collection of {', '.join(d.upper() for d in devices)} activity cannot "
                 "be paused; it stays recorded")

    def _pause_cpu(self):
        # Outside a recording window there is nothing to pause (torch 2.14 ignores the call before
        # its first cycle and fails inside its C++ after one).
        if self._cpu_paused or not self._window_recording:
            return
        self._cpu_paused = True
        _pause_scopes(True)
        _observer.release(self._observer_token)
        self._observer_token = None
        if self._modules:
            # Kept, hooks removed: on again, its modules keep their instance numbers (Linear_0).
            self._modules.stop()

    def _resume_cpu(self):
        if not self._cpu_paused:
            return
        self._cpu_paused = False
        _pause_scopes(False)
        self._setup()
        if self._modules:
            self._modules.start()
        elif self._running:
            self._start_modules()

    def get_trace_id(self):
        """The current cycle's trace id (None before the first cycle is prepared): a new one each
        time a cycle is prepared (torch: prepare_trace), from custom_trace_id_callback when set,
        else a random UUID as 32 hex digits. Each window's trace carries it as "trace_id"."""
        return self._trace_id

    def set_custom_trace_id_callback(self, callback):
        """The trace id generator for the next cycles (called once at the start of each)."""
        self.custom_trace_id_callback = callback

    def wait_for_exports(self):
        """Returns once every export of this profile is written. Kinetoscope writes each export
        (export_chrome_trace, the tensorboard handler) before returning from it, so none is ever
        pending (torch defers them only with its cupti_monitor backend)."""
        return None

    def take_pending_cupti_export(self):
        """torch's cupti_monitor backend's deferred export; None for every other backend, which
        Kinetoscope always is."""
        return None

    @property
    def step_num(self):
        return lib.ks_profiler_step_num(self._p)

    def status(self):
        """Requested activities that are not recorded, with the reason."""
        native = [s for s in take_string(lib.ks_profiler_status(self._results_p)).split("\n") if s]
        return self._notes + native

    def add_metadata(self, key, value):
        for p in (self._p, self._explicit_p):
            if p:
                check(lib.ks_profiler_add_metadata(p, key.encode("utf-8"), str(value).encode("utf-8")))

    def add_metadata_json(self, key, value):
        for p in (self._p, self._explicit_p):
            if p:
                check(lib.ks_profiler_add_metadata_json(p, key.encode("utf-8"), value.encode("utf-8")))

    def preset_metadata_json(self, key, value):
        """Metadata for the windows to come; set before start() (as torch requires) or at any time."""
        self.preset_metadata[key] = value
        self.add_metadata_json(key, value)

    def export_chrome_trace(self, path, use_python_export=False):
        """use_python_export (torch 2.x: torch's Python exporter) is accepted: Kinetoscope has one."""
        check(lib.ks_profiler_export_chrome_trace(self._results_p, str(path).encode("utf-8")))

    def export_stacks(self, path, metric="self_cpu_time_total"):
        check(lib.ks_profiler_export_stacks(self._results_p, str(path).encode("utf-8"), metric.encode("utf-8")))

    def export_memory_timeline(self, path, device=None):
        check(lib.ks_profiler_export_memory_timeline(
            self._results_p, str(path).encode("utf-8"), device.encode("utf-8") if device else None))

    def _json_result(self, ptr):
        if not ptr:
            raise RuntimeError("no profiling window has finished yet")
        return json.loads(take_string(ptr))

    def events(self):
        """The last window's events in torch's order (an EventList of FunctionEvent)."""
        return EventList([FunctionEvent(d) for d in self._json_result(lib.ks_profiler_events(self._results_p))],
                         self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False,
                     include_python_functions=False):
        """The last window's operator averages (an EventList of FunctionEventAvg); .table(...) prints
        them as torch does. torch 2.x's group_by_overload_name and include_python_functions are
        accepted: the observer records operators by name without their overload, and the rows
        leave python_function ranges out (warnings say so when they are asked for)."""
        if group_by_overload_name:
            warn("kinetoscope: operators are recorded without their overload name; "
                 "group_by_overload_name groups by name")
        if include_python_functions:
            warn("kinetoscope: key_averages leaves python_function ranges out; "
                 "include_python_functions has no effect")
        rows = self._json_result(lib.ks_profiler_key_averages(self._results_p, int(bool(group_by_input_shape)),
                                                              int(group_by_stack_n)))
        return EventList([FunctionEventAvg(d) for d in rows], self, group_by_input_shape, group_by_stack_n,
                         averaged=True)

    @property
    def self_cpu_time_total(self):
        return self.events().self_cpu_time_total

    def _table(self, opts):
        ptr = lib.ks_profiler_table(self._results_p, json.dumps(opts).encode("utf-8"))
        if not ptr:
            raise _lib.KinetoscopeError(lib.ks_last_error().decode("utf-8", "replace"))
        return take_string(ptr)


def _default_schedule(_step):
    """torch's schedule without one: record from start() to stop()."""
    return ProfilerAction.RECORD
