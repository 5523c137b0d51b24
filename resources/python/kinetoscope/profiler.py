"""A profiler with torch.profiler.profile's shape, recording Kinetoscope ranges."""
import enum
import json

from . import _lib
from . import ranges as _ranges
from ._lib import check, lib, take_string


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


class schedule:  # noqa: N801 - same name as torch.profiler.schedule
    """torch.profiler.schedule(wait, warmup, active, repeat, skip_first, skip_first_wait)."""

    def __init__(self, *, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
        if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
            raise ValueError("Invalid profiler schedule arguments")
        self.params = dict(wait=wait, warmup=warmup, active=active, repeat=repeat, skip_first=skip_first,
                           skip_first_wait=skip_first_wait)

    def __call__(self, step):
        p = self.params
        if step < p["skip_first"]:
            return ProfilerAction.NONE
        s = step - p["skip_first"]
        if p["skip_first_wait"]:
            s += p["wait"]
        n = p["wait"] + p["warmup"] + p["active"]
        if p["repeat"] > 0 and s >= p["repeat"] * n:
            return ProfilerAction.NONE
        m = s % n
        if m < p["wait"]:
            return ProfilerAction.NONE
        if m < p["wait"] + p["warmup"]:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if m < n - 1 else ProfilerAction.RECORD_AND_SAVE


class tensorboard_trace_handler:  # noqa: N801
    """Writes <dir>/<worker>.<time_ns>.pt.trace.json[.gz] when a window is ready."""

    def __init__(self, dir_name, worker_name=None, use_gzip=False):
        self.dir_name = dir_name
        self.worker_name = worker_name
        self.use_gzip = use_gzip


class profile:  # noqa: N801
    """profile(activities=["cpu"], schedule=None, on_trace_ready=None, record_shapes=False,
    profile_memory=False, with_stack=False, with_flops=False)."""

    def __init__(self, activities=("cpu",), schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False):
        opts = {
            "activities": [str(a).split(".")[-1].lower() for a in activities],
            "record_shapes": bool(record_shapes),
            "profile_memory": bool(profile_memory),
            "with_stack": bool(with_stack),
            # Ranges pass the Python stack (ranges.python_stack); the interpreter's native frames
            # would say nothing.
            "native_stack": False,
            "with_flops": bool(with_flops),
        }
        self._with_stack = bool(with_stack)
        if schedule is not None:
            if not isinstance(schedule, globals()["schedule"]):
                raise TypeError("schedule must be kinetoscope.schedule(...)")
            opts["schedule"] = schedule.params
        self._p = lib.ks_profiler_create(json.dumps(opts).encode("utf-8"))
        if not self._p:
            raise _lib.KinetoscopeError(lib.ks_last_error().decode("utf-8", "replace"))
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

    def __del__(self):
        p = getattr(self, "_p", None)
        if p:
            lib.ks_profiler_destroy(p)
            self._p = None

    def start(self):
        check(lib.ks_profiler_start(self._p))
        self._running = True
        _ranges._set_with_stack(self._with_stack)

    def stop(self):
        if getattr(self, "_running", False):
            self._running = False
            _ranges._set_with_stack(False)
        check(lib.ks_profiler_stop(self._p))

    def step(self):
        check(lib.ks_profiler_step(self._p))

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
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

    def export_chrome_trace(self, path):
        check(lib.ks_profiler_export_chrome_trace(self._p, str(path).encode("utf-8")))

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """The last window's operator averages; .table(...) prints them as torch does."""
        return KeyAverages(self, group_by_input_shape, group_by_stack_n)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        check(lib.ks_profiler_export_stacks(self._p, str(path).encode("utf-8"), metric.encode("utf-8")))

    def export_memory_timeline(self, path, device=None):
        check(lib.ks_profiler_export_memory_timeline(
            self._p, str(path).encode("utf-8"), device.encode("utf-8") if device else None))


class KeyAverages:
    """What prof.key_averages(...) returns here: only table(), computed by the library."""

    def __init__(self, prof, group_by_input_shape, group_by_stack_n):
        self._prof = prof
        self._group = {"group_by_input_shape": bool(group_by_input_shape),
                       "group_by_stack_n": int(group_by_stack_n)}

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        opts = dict(self._group, sort_by=sort_by, row_limit=row_limit, header=header,
                    max_src_column_width=max_src_column_width, max_name_column_width=max_name_column_width,
                    max_shapes_column_width=max_shapes_column_width,
                    top_level_events_only=bool(top_level_events_only), time_unit=time_unit)
        ptr = lib.ks_profiler_table(self._prof._p, json.dumps(opts).encode("utf-8"))
        if not ptr:
            raise _lib.KinetoscopeError(lib.ks_last_error().decode("utf-8", "replace"))
        return take_string(ptr)

    def __str__(self):
        return self.table()
