"""torch_geometric.profile's profiling helpers (its profile.py), recorded by Kinetoscope instead of
torch.profiler: the same signatures, return types and field names, files written (timeline.json
and profile-*.json in the working directory), printed output and errors (docs/pyg-profile.md).

    import kinetoscope as profile          # in place of: from torch_geometric import profile

    with profile.torch_profile(csv_data=csv_data, write_csv="prof"):
        model(x, edge_index)
    profile.rename_profile_file("GraphSAGE", "cpu")

torch is imported inside the functions, never at import: `import kinetoscope` works without it.
"""
import functools
import os
import sys
import time
from contextlib import ContextDecorator, contextmanager
from dataclasses import dataclass

from .actions import ProfilerActivity
from .profiler import profile as _profile
from .pygutils import byte_to_megabyte, get_gpu_memory_from_ipex, get_gpu_memory_from_nvidia_smi
from .ranges import range as _range
from .results import EventList


@dataclass
class GPUStats:
    time: float              # seconds
    max_allocated_gpu: float  # MB (byte_to_megabyte)
    max_reserved_gpu: float
    max_active_gpu: float


@dataclass
class CUDAStats(GPUStats):
    nvidia_smi_free_cuda: float  # MB, as get_gpu_memory_from_nvidia_smi gives them
    nvidia_smi_used_cuda: float


@dataclass
class GPUStatsSummary:
    time_mean: float
    time_std: float
    max_allocated_gpu: float
    max_reserved_gpu: float
    max_active_gpu: float


@dataclass
class CUDAStatsSummary(GPUStatsSummary):
    min_nvidia_smi_free_cuda: float
    max_nvidia_smi_used_cuda: float


class TimerNotStarted(RuntimeError, AttributeError):
    """timeit.reset() before the timer was entered. PyG means to raise RuntimeError there and in
    fact raises AttributeError (its start time is not set yet); this is both, so that code written
    against either catches it."""


class DeviceUnavailableError(RuntimeError, TypeError):
    """xpu_profile() without an XPU. PyG raises TypeError there (torch's legacy profiler takes
    use_xpu only once intel_extension_for_pytorch has patched it); this is also a TypeError, so
    that code written against PyG catches it."""


def _cuda_sync():
    # A CUDA device is only in use once torch is imported; importing it here would make every
    # torch-free timing pay for torch's import.
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.synchronize()


class timeit(ContextDecorator):  # noqa: N801 - torch_geometric's name
    """Times a block or, as a decorator, each call: `with timeit() as t: ...; t.duration` (seconds;
    set on exit, absent before). CUDA work is synchronised on both sides, so the time covers the
    kernels. avg_time_divisor > 1 divides the time (the block ran that many iterations). log prints
    `Time: 0.12345678s`. reset() ends the current measurement (duration, log) and starts the
    next. The block is also recorded as a Kinetoscope range (`name`, ours)."""

    def __init__(self, log=True, avg_time_divisor=0, name="timeit"):
        self.log = log
        self.avg_time_divisor = avg_time_divisor
        self._range = _range(name)
        self._open = False

    def __enter__(self):
        _cuda_sync()
        self._range.__enter__()
        self._open = True
        self.t_start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        _cuda_sync()
        self.t_end = time.perf_counter()
        if self._open:
            self._open = False
            self._range.__exit__(*exc)
        self.duration = self.t_end - self.t_start
        if self.avg_time_divisor > 1:
            self.duration /= self.avg_time_divisor
        if self.log:
            print(f"Time: {self.duration:.8f}s", flush=True)

    def reset(self):
        """Ends the current measurement (sets duration, logs it) and starts the next."""
        if not hasattr(self, "t_start"):
            raise TimerNotStarted("Timer wasn't started.")
        self.__exit__()
        self.__enter__()


def _float32_mean_std(values):
    # PyG computes both with torch.tensor(values) (float32, std with n - 1: nan for one value);
    # computed the same way, the summaries of the same stats are the same numbers.
    import torch
    t = torch.tensor(values)
    return float(t.mean()), float(t.std())


def get_stats_summary(stats_list):
    """Summary of profileit()'s stats: time mean and standard deviation, maxima of the memory
    peaks; a CUDAStatsSummary (adding the least free and most used nvidia-smi memory) when every
    item is a CUDAStats, else a GPUStatsSummary. ValueError for an empty list (as PyG)."""
    if not stats_list:
        raise ValueError("get_stats_summary() needs at least one GPUStats or CUDAStats")
    mean, std = _float32_mean_std([s.time for s in stats_list])
    common = dict(time_mean=mean, time_std=std,
                  max_allocated_gpu=max(s.max_allocated_gpu for s in stats_list),
                  max_reserved_gpu=max(s.max_reserved_gpu for s in stats_list),
                  max_active_gpu=max(s.max_active_gpu for s in stats_list))
    if all(isinstance(s, CUDAStats) for s in stats_list):
        return CUDAStatsSummary(**common,
                                min_nvidia_smi_free_cuda=min(s.nvidia_smi_free_cuda for s in stats_list),
                                max_nvidia_smi_used_cuda=max(s.nvidia_smi_used_cuda for s in stats_list))
    return GPUStatsSummary(**common)


_PEAKS = ("allocated_bytes.all.peak", "reserved_bytes.all.peak", "active_bytes.all.peak")


def profileit(device):
    """Decorator for a function whose first argument is the torch.nn.Module it runs: each call
    returns (result, stats), a CUDAStats for "cuda" and a GPUStats for "xpu": the call's GPU time
    (device events) and its allocator peaks in MB, for CUDA with nvidia-smi's free and used
    memory. The device is that of the first tensor among the arguments. Errors as PyG's, at call
    time: AttributeError for another device, a first argument that is not a Module, no tensor
    argument; RuntimeError for a CPU tensor. The call is also a Kinetoscope range.

    PyG reads the CUDA peaks with pytorch_memlab over the lines of the model's forward(); here
    they are torch's allocator peaks over the whole call (reset before it), which needs no
    pytorch_memlab and includes the backward pass."""

    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            import torch
            if not args or not isinstance(args[0], torch.nn.Module):
                raise AttributeError("First argument for profiling needs to be torch.nn.Module")
            if device not in ("cuda", "xpu"):
                raise AttributeError("The profiling decorator supports only CUDA and XPU devices")
            device_id = next((a.get_device() for a in list(args) + list(kwargs.values())
                              if isinstance(a, torch.Tensor)), None)
            if device_id is None:
                raise AttributeError("Could not infer GPU device from the args in the function being profiled")
            if device_id == -1:
                raise RuntimeError("The profiling decorator does not support profiling on non GPU devices")
            is_cuda = device == "cuda"
            gpu = torch.cuda if is_cuda else torch.xpu
            if is_cuda:
                torch.cuda.reset_peak_memory_stats(device_id)
            start = gpu.Event(enable_timing=True)
            end = gpu.Event(enable_timing=True)
            start.record()
            with _range(getattr(func, "__qualname__", "profileit")):
                out = func(*args, **kwargs)
            end.record()
            gpu.synchronize()
            seconds = start.elapsed_time(end) / 1000
            if is_cuda:
                stats = torch.cuda.memory_stats(device_id)
                peaks = [byte_to_megabyte(stats.get(k, 0)) for k in _PEAKS]
                free, used = get_gpu_memory_from_nvidia_smi(device=device_id)
                return out, CUDAStats(seconds, *peaks, free, used)
            return out, GPUStats(seconds, *get_gpu_memory_from_ipex(device_id))

        return wrapper

    return decorator


def read_from_memlab(line_profiler):
    """[max allocated, max reserved, max active] in MB over the line records of a
    pytorch_memlab.LineProfiler (the peaks torch.cuda.memory_stats gave at each profiled line).
    ModuleNotFoundError without pytorch_memlab, as PyG."""
    try:
        import pytorch_memlab  # noqa: F401 - only its LineProfiler makes the records read here
    except ImportError:
        raise ModuleNotFoundError("read_from_memlab needs pytorch_memlab, which is not installed",
                                  name="pytorch_memlab") from None
    records = getattr(line_profiler, "_raw_line_records", None)
    if records is None:
        raise TypeError(f"read_from_memlab needs a pytorch_memlab LineProfiler, not {type(line_profiler).__name__}")
    if not records:
        raise ValueError("read_from_memlab: the LineProfiler recorded no lines")
    # Every record carries the peaks since the previous line; pytorch_memlab's per-function
    # accumulation only regroups them, so the maxima over all records are the same.
    return [byte_to_megabyte(max(r[k] for r in records)) for k in _PEAKS]


def _sort_key():
    torch = sys.modules.get("torch")
    cuda = torch is not None and torch.cuda.is_available()
    return "self_cuda_time_total" if cuda else "self_cpu_time_total"


def print_time_total(p):
    """Prints the profile's operator table sorted by self CUDA time when CUDA is available, else
    by self CPU time."""
    print(p.key_averages().table(sort_by=_sort_key()))


def trace_handler(p):
    """on_trace_ready handler: prints the table (print_time_total) and writes the trace to
    timeline.json in the working directory."""
    print_time_total(p)
    p.export_chrome_trace(os.path.join(os.getcwd(), "timeline.json"))


def rename_profile_file(*args):
    """Renames timeline.json (working directory) to profile-<arg1>-<arg2>....json there."""
    target = os.path.join(os.getcwd(), "profile" + "".join("-" + a for a in args) + ".json")
    os.rename("timeline.json", target)


def format_prof_time(time):  # noqa: A002 - PyG's parameter name
    """Profiler microseconds to seconds, rounded to 3 decimals."""
    return round(time / 1e6, 3)


def save_profile_data(csv_data, events, use_cuda):
    """Appends the 5 first events (key_averages rows) to csv_data, a dict of column lists (PyG's
    scripts pass a defaultdict(list)): NAME, SELF CPU %, SELF CPU, CPU TOTAL %, CPU TOTAL,
    CPU TIME AVG, with use_cuda SELF CUDA %, SELF CUDA, CUDA TOTAL, CUDA TIME AVG, then # OF CALLS;
    times in seconds (format_prof_time). The figures are PyG's: both percentages are of the summed
    self CPU time (so CPU TOTAL % can pass 100), CPU TIME AVG, CUDA TOTAL and CUDA TIME AVG are
    the row's CPU total, SELF CUDA % is not rounded."""
    self_cpu_sum = sum(e.self_cpu_time_total for e in events)
    self_cuda_sum = sum(e.self_cuda_time_total for e in events) if use_cuda else 0
    for e in events[:5]:
        csv_data["NAME"].append(e.key)
        csv_data["SELF CPU %"].append(round(e.self_cpu_time_total * 100.0 / self_cpu_sum, 3))
        csv_data["SELF CPU"].append(format_prof_time(e.self_cpu_time_total))
        csv_data["CPU TOTAL %"].append(round(e.cpu_time_total * 100.0 / self_cpu_sum, 3))
        csv_data["CPU TOTAL"].append(format_prof_time(e.cpu_time_total))
        csv_data["CPU TIME AVG"].append(format_prof_time(e.cpu_time_total))
        if use_cuda:
            csv_data["SELF CUDA %"].append(e.self_cuda_time_total * 100.0 / self_cuda_sum)
            csv_data["SELF CUDA"].append(format_prof_time(e.self_cuda_time_total))
            csv_data["CUDA TOTAL"].append(format_prof_time(e.cpu_time_total))
            csv_data["CUDA TIME AVG"].append(format_prof_time(e.cpu_time_total))
        csv_data["# OF CALLS"].append(e.count)


@contextmanager
def torch_profile(export_chrome_trace=True, csv_data=None, write_csv=None):
    """Records the block with kinetoscope.profile (CPU, and CUDA when available); at its end
    prints the table and, with export_chrome_trace, writes timeline.json (trace_handler). With
    csv_data and write_csv == "prof", the 5 operators of most self time are appended to csv_data
    (save_profile_data)."""
    import torch
    use_cuda = torch.cuda.is_available()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if use_cuda else [])
    p = _profile(activities=activities, on_trace_ready=trace_handler if export_chrome_trace else print_time_total)
    with p:
        yield
        p.step()
    if csv_data is not None and write_csv == "prof":
        key = "self_cuda_time_total" if use_cuda else "self_cpu_time_total"
        rows = sorted(p.key_averages(), key=lambda e: getattr(e, key), reverse=True)
        save_profile_data(csv_data, EventList(rows, p, averaged=True), use_cuda)


@contextmanager
def xpu_profile(export_chrome_trace=True):
    """Records the block with kinetoscope.profile (CPU and XPU); at its end prints the table
    sorted by self XPU time and, with export_chrome_trace, writes timeline.json (working
    directory). DeviceUnavailableError (a TypeError, as PyG raises there) without an XPU."""
    import torch
    xpu = getattr(torch, "xpu", None)
    if xpu is None or not xpu.is_available():
        raise DeviceUnavailableError("xpu_profile needs an XPU, and torch.xpu is not available")
    p = _profile(activities=[ProfilerActivity.CPU, ProfilerActivity.XPU])
    with p:
        yield
    print(p.key_averages().table(sort_by="self_xpu_time_total"))
    if export_chrome_trace:
        p.export_chrome_trace("timeline.json")
