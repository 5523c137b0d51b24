"""Benchmark helpers: torch_geometric.profile's timeit, profileit and get_stats_summary
(kinetoscope.pygprofile), which here also measure CPU functions, and CSV.

profileit() without a device (ours; PyG requires "cuda" or "xpu") measures any function on the
CPU: it returns (result, Stats), summarised by get_stats_summary into a StatsSummary. Peak memory
per call is measured as the process's resident-set high-water mark (reset before the call through
/proc/self/clear_refs on Linux), the Python heap peak (tracemalloc) and, when torch with CUDA is
already imported, torch's CUDA allocator peaks; this path never imports torch.
"""
import csv
import functools
import io
import math
import os
import sys
import tempfile
import time
import tracemalloc
from dataclasses import asdict, dataclass, fields
from typing import Optional

from . import pygprofile as _pyg
from .pygprofile import timeit  # noqa: F401 - kinetoscope.bench.timeit, as before
from .ranges import range as _range


def _cuda():
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_available():
            return torch.cuda
    except Exception:
        pass
    return None


def _reset_rss_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _rss_peak_bytes():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


@dataclass
class Stats:
    time: float                      # seconds
    peak_rss: int                    # bytes, process resident-set high-water mark during the call
    peak_python: int                 # bytes, Python heap peak during the call (tracemalloc)
    max_allocated_cuda: Optional[int] = None
    max_reserved_cuda: Optional[int] = None


@dataclass
class StatsSummary:
    time_mean: float
    time_std: float
    time_max: float
    peak_rss_max: int
    peak_python_max: int
    max_allocated_cuda: Optional[int] = None
    max_reserved_cuda: Optional[int] = None


def profileit(device=None):
    """Decorator: the wrapped function returns (result, stats). With device "cuda" or "xpu" (or
    any other, which fails at call time as in PyG) it is torch_geometric's profileit
    (kinetoscope.pygprofile.profileit: CUDAStats / GPUStats); without one, any function measured on
    the CPU (Stats)."""
    if device is not None:
        return _pyg.profileit(device)

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            cuda = _cuda()
            if cuda is not None:
                cuda.synchronize()
                cuda.reset_peak_memory_stats()
            _reset_rss_peak()
            tracing = tracemalloc.is_tracing()
            if not tracing:
                tracemalloc.start()
            tracemalloc.reset_peak()
            with _range(getattr(fn, "__qualname__", "profileit")):
                t0 = time.perf_counter()
                out = fn(*args, **kwargs)
                if cuda is not None:
                    cuda.synchronize()
                t = time.perf_counter() - t0
            _, py_peak = tracemalloc.get_traced_memory()
            if not tracing:
                tracemalloc.stop()
            stats = Stats(time=t, peak_rss=_rss_peak_bytes(), peak_python=py_peak)
            if cuda is not None:
                stats.max_allocated_cuda = int(cuda.max_memory_allocated())
                stats.max_reserved_cuda = int(cuda.max_memory_reserved())
            return out, stats
        return wrapper
    return decorator


def _std(values):
    # Sample standard deviation (n - 1), as torch.Tensor.std() computes it.
    n = len(values)
    if n < 2:
        return 0.0 if n == 1 else float("nan")
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))


def get_stats_summary(stats_list):
    """Summary of profileit's stats: for Stats (profileit without a device) a StatsSummary (mean,
    standard deviation and maximum of time, maxima of the memory figures); for anything else
    torch_geometric's (kinetoscope.pygprofile.get_stats_summary: GPUStatsSummary /
    CUDAStatsSummary)."""
    if not stats_list or not all(isinstance(s, Stats) for s in stats_list):
        return _pyg.get_stats_summary(stats_list)
    times = [s.time for s in stats_list]

    def opt_max(attr):
        vals = [getattr(s, attr) for s in stats_list if getattr(s, attr) is not None]
        return max(vals) if vals else None

    return StatsSummary(
        time_mean=sum(times) / len(times), time_std=_std(times), time_max=max(times),
        peak_rss_max=max(s.peak_rss for s in stats_list), peak_python_max=max(s.peak_python for s in stats_list),
        max_allocated_cuda=opt_max("max_allocated_cuda"), max_reserved_cuda=opt_max("max_reserved_cuda"))


def write_csv(path, rows, labels=None):
    """Writes Stats or StatsSummary rows (any dataclass rows: GPUStats, CUDAStatsSummary too) as CSV
    (header from the field names; an optional first 'name' column from labels), atomically: a
    temporary file renamed over path."""
    rows = list(rows)
    if not rows:
        raise ValueError("write_csv() needs at least one row")
    names = [f.name for f in fields(rows[0])]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow((["name"] if labels else []) + names)
    for i, r in enumerate(rows):
        d = asdict(r)
        w.writerow(([labels[i]] if labels else []) + ["" if d[n] is None else d[n] for n in names])
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".ks-", dir=directory)
    try:
        with os.fdopen(fd, "w", newline="") as f:
            f.write(buf.getvalue())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
