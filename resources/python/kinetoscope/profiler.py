"""A profiler with torch.profiler.profile's arguments and methods, recording into libkinetoscope.

With torch imported and libkinetoscope_torch.so present (kinetoscope.torchobserver), torch's
operators, autograd functions and record_function ranges are recorded natively; without them only
Kinetoscope's own ranges (record_function, range) are.
"""
import json
import sys
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


class tensorboard_trace_handler:  # noqa: N801
    """Writes <dir>/<worker>.<time_ns>.pt.trace.json[.gz] when a window is ready (natively; called
    with a profile it does the same from Python, like torch's handler)."""

    def __init__(self, dir_name, worker_name=None, use_gzip=False):
        self.dir_name = dir_name
        self.worker_name = worker_name
        self.use_gzip = use_gzip

    def __call__(self, prof):
        import os
        import socket
        import time
        os.makedirs(self.dir_name, exist_ok=True)
        worker = self.worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns()}.pt.trace.json" + (".gz" if self.use_gzip else "")
        prof.export_chrome_trace(os.path.join(self.dir_name, name))


class record_function(_ranges.range):  # noqa: N801
    """torch.profiler.record_function(name, args=None): a context manager and decorator. args (a
    string, as torch takes it) is kept as the range's "args" arg."""

    def __init__(self, name, args=None):
        super().__init__(name, {"args": args} if args is not None else None)


class profile:  # noqa: N801
    """torch.profiler.profile(activities, schedule, on_trace_ready, record_shapes, profile_memory,
    with_stack, with_flops, with_modules, experimental_config, execution_trace_observer, use_cuda).

    schedule: kinetoscope.schedule (run natively) or any callable step -> ProfilerAction (ours or
    torch's, e.g. torch.profiler.schedule(...)). with_modules (or with_stack), with torch imported:
    every nn.Module call is a python_function range "nn.Module: <class>", as torch's Python tracer
    records it (with_stack: by libkinetoscope_torch's profile function, docs/torch-observer.md). experimental_config is accepted and not used. shape_sampling (ours): record input shapes of
    every n-th call of each operator. execution_trace_observer: torch's ExecutionTraceObserver
    (torch 2.x) or ExecutionGraphObserver (torch 1.13), registered by the caller; as torch does, it
    is started when each window starts recording and stopped when it stops, and on leaving the
    context manager its cleanup() (torch 2.x) is called.
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, use_cuda=None, shape_sampling=1,
                 op_filter=None):
        acts = set(activity_name(a) for a in activities) if activities else \
            set(activity_name(a) for a in supported_activities())
        if use_cuda is not None:
            warn("use_cuda is deprecated, use activities argument instead")
            if use_cuda:
                acts.add("cuda")
            else:
                acts.discard("cuda")
        assert len(acts) > 0, "No valid profiler activities found"
        self.activities = acts
        self.record_shapes = bool(record_shapes)
        self.profile_memory = bool(profile_memory)
        self.with_stack = bool(with_stack)
        self.with_flops = bool(with_flops)
        self.with_modules = bool(with_modules)
        self.experimental_config = experimental_config
        self._observer_options = {"record_shapes": self.record_shapes or self.with_flops,
                                  "profile_memory": self.profile_memory,
                                  "with_stack": self.with_stack,
                                  "shape_sampling": int(shape_sampling)}
        if op_filter:
            self._observer_options.update(op_filter)
        opts = {
            "activities": sorted(acts),
            "record_shapes": self.record_shapes,
            "profile_memory": self.profile_memory,
            "with_stack": self.with_stack,
            # Ranges pass the Python stack (ranges.python_stack); the interpreter's native frames
            # would say nothing.
            "native_stack": False,
            "with_flops": self.with_flops,
        }
        self._schedule_cb = None
        self._schedule_error = None
        if isinstance(schedule, globals()["schedule"]):
            opts["schedule"] = schedule.params
            self._p = lib.ks_profiler_create(json.dumps(opts).encode("utf-8"))
        elif schedule is not None:
            if not callable(schedule):
                raise TypeError("schedule must be a callable taking the step number")

            def run_schedule(step, _user):
                try:
                    return action_value(schedule(step))
                except BaseException as e:  # re-raised by step()/start() on the caller's side
                    self._schedule_error = e
                    return 0
            self._schedule_cb = _lib.SCHEDULE_FN(run_schedule)
            self._p = lib.ks_profiler_create_scheduled(json.dumps(opts).encode("utf-8"), self._schedule_cb, None)
        else:
            self._p = lib.ks_profiler_create(json.dumps(opts).encode("utf-8"))
        if not self._p:
            raise _lib.KinetoscopeError(lib.ks_last_error().decode("utf-8", "replace"))
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
        self._tagger = None
        self._modules = None
        self.execution_trace_observer = execution_trace_observer
        self._window_cb = None
        if execution_trace_observer is not None:
            def on_window(_handle, recording, _user):
                try:
                    if recording:
                        execution_trace_observer.start()
                    else:
                        execution_trace_observer.stop()
                except BaseException as e:  # re-raised by step()/start()/stop() on the caller's side
                    self._schedule_error = self._schedule_error or e
            self._window_cb = _lib.WINDOW_FN(on_window)  # kept alive as long as the profiler
            lib.ks_profiler_set_window_callback(self._p, self._window_cb, None)

    def __del__(self):
        _observer.release(getattr(self, "_observer_token", None))
        p = getattr(self, "_p", None)
        if p:
            lib.ks_profiler_destroy(p)
            self._p = None

    def _raise_schedule_error(self):
        e, self._schedule_error = self._schedule_error, None
        if e is not None:
            raise e

    def start(self):
        if "torch" in sys.modules and self._observer_token is None:
            self._observer_token, self.observer_status = _observer.acquire(self._observer_options)
            if self.profile_memory and self._observer_token is not None:
                from .memorytags import MemoryTagger
                self._tagger = MemoryTagger()
        check(lib.ks_profiler_start(self._p))
        self._raise_schedule_error()
        self._running = True
        _ranges._set_with_stack(self.with_stack)
        if self._tagger:
            self._tagger.start()
        native_modules = self.with_stack and _observer.stacks_record_modules()
        if (self.with_modules or self.with_stack) and "torch" in sys.modules and self._modules is None \
                and not native_modules:
            from .moduleranges import ModuleRanges
            self._modules = ModuleRanges(name_frames=self.with_stack and _observer.stacks_active())
            self._modules.start()

    def stop(self):
        if self._running:
            self._running = False
            _ranges._set_with_stack(False)
        try:
            if self._modules:
                self._modules.stop()
                self._modules = None
            if self._tagger:
                self._tagger.stop()
                self._tagger = None
            check(lib.ks_profiler_stop(self._p))
        finally:
            _observer.release(self._observer_token)
            self._observer_token = None
        self._raise_schedule_error()

    def step(self):
        # Tagged on both sides of the boundary: the window that ends and the one that may begin.
        if self._tagger:
            self._tagger.tag_state()
        check(lib.ks_profiler_step(self._p))
        self._raise_schedule_error()
        if self._tagger:
            self._tagger.tag_state()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        cleanup = getattr(self.execution_trace_observer, "cleanup", None)
        if cleanup is not None:
            cleanup()
        return False

    @property
    def step_num(self):
        return lib.ks_profiler_step_num(self._p)

    def status(self):
        """Requested activities that are not recorded, with the reason."""
        return [s for s in take_string(lib.ks_profiler_status(self._p)).split("\n") if s]

    def add_metadata(self, key, value):
        check(lib.ks_profiler_add_metadata(self._p, key.encode("utf-8"), str(value).encode("utf-8")))

    def add_metadata_json(self, key, value):
        check(lib.ks_profiler_add_metadata_json(self._p, key.encode("utf-8"), value.encode("utf-8")))

    def preset_metadata_json(self, key, value):
        """Metadata for the windows to come; set before start() (as torch requires) or at any time."""
        self.add_metadata_json(key, value)

    def export_chrome_trace(self, path):
        check(lib.ks_profiler_export_chrome_trace(self._p, str(path).encode("utf-8")))

    def export_stacks(self, path, metric="self_cpu_time_total"):
        check(lib.ks_profiler_export_stacks(self._p, str(path).encode("utf-8"), metric.encode("utf-8")))

    def export_memory_timeline(self, path, device=None):
        check(lib.ks_profiler_export_memory_timeline(
            self._p, str(path).encode("utf-8"), device.encode("utf-8") if device else None))

    def _json_result(self, ptr):
        if not ptr:
            raise RuntimeError("no profiling window has finished yet")
        return json.loads(take_string(ptr))

    def events(self):
        """The last window's events in torch's order (an EventList of FunctionEvent)."""
        return EventList([FunctionEvent(d) for d in self._json_result(lib.ks_profiler_events(self._p))], self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """The last window's operator averages (an EventList of FunctionEventAvg); .table(...) prints
        them as torch does."""
        rows = self._json_result(lib.ks_profiler_key_averages(self._p, int(bool(group_by_input_shape)),
                                                              int(group_by_stack_n)))
        return EventList([FunctionEventAvg(d) for d in rows], self, group_by_input_shape, group_by_stack_n,
                         averaged=True)

    @property
    def self_cpu_time_total(self):
        return self.events().self_cpu_time_total

    def _table(self, opts):
        ptr = lib.ks_profiler_table(self._p, json.dumps(opts).encode("utf-8"))
        if not ptr:
            raise _lib.KinetoscopeError(lib.ks_last_error().decode("utf-8", "replace"))
        return take_string(ptr)
