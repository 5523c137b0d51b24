"""What profile.events() and profile.key_averages() return: lists shaped like torch's EventList of
FunctionEvent / FunctionEventAvg, computed by the library from the last window."""
import collections


class Interval(collections.namedtuple("Interval", "start end")):
    """torch.autograd.profiler_util.Interval: times in us."""

    def elapsed_us(self):
        return self.end - self.start


class FunctionEvent:
    """One event of the window (torch's FunctionEvent, the fields front ends read)."""

    def __init__(self, d):
        self.name = d["name"]
        self.key = d["name"]
        self.thread = d["thread"]
        self.time_range = Interval(d["start_us"], d["end_us"])
        self.count = 1
        self.cpu_time_total = 0.0 if d["device"] else d["end_us"] - d["start_us"]
        self.self_cpu_time_total = d["self_cpu_us"]
        self.device_time_total = d["end_us"] - d["start_us"] if d["device"] else d["device_us"]
        self.self_device_time_total = d["self_device_us"]
        self.cuda_time_total = self.device_time_total
        self.self_cuda_time_total = self.self_device_time_total
        self.is_user_annotation = d["user_annotation"]
        self.device_type = "CUDA" if d["device"] else "CPU"
        self.top_level = d["top_level"]
        self.stack = d.get("stack") or []

    @property
    def cpu_time(self):
        return self.cpu_time_total

    def __repr__(self):
        return (f"<FunctionEvent name={self.name} thread={self.thread} cpu_time_total={self.cpu_time_total:.3f}us "
                f"self_cpu_time_total={self.self_cpu_time_total:.3f}us>")


class FunctionEventAvg:
    """One key_averages() row (torch's FunctionEventAvg)."""

    _FIELDS = ("count", "cpu_time_total", "self_cpu_time_total", "device_time_total", "self_device_time_total",
               "cpu_memory_usage", "self_cpu_memory_usage", "device_memory_usage", "self_device_memory_usage",
               "flops")

    def __init__(self, d=None):
        d = d or {}
        self.key = d.get("key")
        self.input_shapes = d.get("input_shapes") or None
        self.stack = d.get("stack") or []
        self.is_user_annotation = bool(d.get("is_user_annotation"))
        self.device_type = "CUDA" if d.get("is_device") else "CPU"
        self.is_legacy = False
        for f in self._FIELDS:
            setattr(self, f, d.get(f, 0))

    # torch's older names
    @property
    def cuda_time_total(self):
        return self.device_time_total

    @property
    def self_cuda_time_total(self):
        return self.self_device_time_total

    @property
    def cuda_memory_usage(self):
        return self.device_memory_usage

    @property
    def self_cuda_memory_usage(self):
        return self.self_device_memory_usage

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def device_time(self):
        return self.device_time_total / self.count if self.count else 0.0

    cuda_time = device_time

    def add(self, other):
        """Accumulates another row, as torch's FunctionEventAvg.add (used by total_average())."""
        if self.key is None:
            self.key = other.key
        for f in self._FIELDS:
            setattr(self, f, getattr(self, f) + getattr(other, f))
        return self

    __iadd__ = add

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}us "
                f"cpu_time={self.cpu_time:.3f}us count={self.count}>")


class EventList(list):
    """torch's EventList: a list, plus table(), total_average(), self_cpu_time_total and the exports
    (which, as in torch, are those of the profile it came from)."""

    def __init__(self, items, prof, group_by_input_shape=False, group_by_stack_n=0, averaged=False):
        super().__init__(items)
        self._prof = prof
        self._group = (bool(group_by_input_shape), int(group_by_stack_n))
        self._averaged = averaged

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total.add(e if isinstance(e, FunctionEventAvg) else _as_avg(e))
        total.key = "Total"
        return total

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        return self._prof.key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """The operator table as torch prints it. For the list events() returns, the table is that of
        its key_averages(): torch's per-event table of a long run is not something anyone reads."""
        group_by_input_shape, group_by_stack_n = self._group
        return self._prof._table(dict(sort_by=sort_by, row_limit=row_limit, header=header,
                                      max_src_column_width=max_src_column_width,
                                      max_name_column_width=max_name_column_width,
                                      max_shapes_column_width=max_shapes_column_width,
                                      top_level_events_only=bool(top_level_events_only), time_unit=time_unit,
                                      group_by_input_shape=group_by_input_shape,
                                      group_by_stack_n=group_by_stack_n))

    def export_chrome_trace(self, path):
        self._prof.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self._prof.export_stacks(path, metric)

    def __str__(self):
        return self.table()


def _as_avg(e):
    a = FunctionEventAvg({"key": e.key})
    a.count = 1
    a.cpu_time_total = e.cpu_time_total
    a.self_cpu_time_total = e.self_cpu_time_total
    a.device_time_total = e.device_time_total
    a.self_device_time_total = e.self_device_time_total
    return a
