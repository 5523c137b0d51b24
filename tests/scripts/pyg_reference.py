"""The reference for tests/scripts/test_pyg_profile.sh: torch_geometric.profile's behaviour written
down as a stand-in module on torch.profiler, since torch_geometric itself cannot be installed here.

Read from PyG's sources (pyg-team/pytorch_geometric at 5c6461b2, torch_geometric/profile/
__init__.py, profile.py, utils.py, benchmark.py, nvtx.py, and its tests under test/profile/):
what each name takes and returns, which files it writes where, what it prints and what it raises.
Where PyG's behaviour is a quirk (reset() before entering raises AttributeError; xpu_profile
passes use_xpu to torch's legacy profiler, which only intel_extension_for_pytorch adds; the
CSV's percentages), this module has the quirk, because the comparison is with what PyG does.
Needs of torch_geometric internals are duck-typed as kinetoscope does (get_data_size's `stores`).
"""
import gc
import os
import subprocess
import time
from contextlib import ContextDecorator, contextmanager
from dataclasses import dataclass

import torch
from torch.profiler import ProfilerActivity, profile


@dataclass
class GPUStats:
    time: float
    max_allocated_gpu: float
    max_reserved_gpu: float
    max_active_gpu: float


@dataclass
class CUDAStats(GPUStats):
    nvidia_smi_free_cuda: float
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


def byte_to_megabyte(value, digits=2):
    return round(value / 2 ** 20, digits)


def medibyte_to_megabyte(value, digits=2):
    return round(value * 1.0485, digits)


def format_prof_time(time):
    return round(time / 1e6, 3)


# --- profile.py --------------------------------------------------------------------------------

class timeit(ContextDecorator):
    # No start time before __enter__: reset() then fails on the attribute (AttributeError).
    def __init__(self, log=True, avg_time_divisor=0):
        self.log, self.avg_time_divisor = log, avg_time_divisor

    def __enter__(self):
        self.t_start = time.time()
        return self

    def __exit__(self, *exc):
        self.t_end = time.time()
        self.duration = self.t_end - self.t_start
        if self.avg_time_divisor > 1:
            self.duration /= self.avg_time_divisor
        if self.log:
            print("Time: %.8fs" % self.duration, flush=True)

    def reset(self):
        if self.t_start is None:
            raise RuntimeError("Timer wasn't started.")
        self.__exit__()
        self.__enter__()


def profileit(device):
    # Checked at call time, in this order: Module first argument, device name, a tensor argument
    # (its get_device()), a GPU tensor. CUDA peaks come from pytorch_memlab's LineProfiler over
    # forward(), free/used from nvidia-smi; XPU peaks from IPEX. Time from device events.
    def decorator(func):
        def wrapper(*args, **kwargs):
            if not isinstance(args[0], torch.nn.Module):
                raise AttributeError("First argument for profiling needs to be torch.nn.Module")
            if device not in ("cuda", "xpu"):
                raise AttributeError("The profiling decorator supports only CUDA and XPU devices")
            tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]
            if not tensors:
                raise AttributeError("Could not infer GPU device from the args in the function being profiled")
            dev = tensors[0].get_device()
            if dev == -1:
                raise RuntimeError("The profiling decorator does not support profiling on non GPU devices")
            gpu = torch.cuda if device == "cuda" else torch.xpu
            if device == "cuda":
                from pytorch_memlab import LineProfiler
                lp = LineProfiler(target_gpu=dev)
                lp.enable()
                lp.add_function(args[0].forward)
            t0, t1 = gpu.Event(enable_timing=True), gpu.Event(enable_timing=True)
            t0.record()
            out = func(*args, **kwargs)
            t1.record()
            gpu.synchronize()
            seconds = t0.elapsed_time(t1) / 1000
            if device == "cuda":
                peaks = read_from_memlab(lp)
                lp.disable()
                return out, CUDAStats(seconds, *peaks, *get_gpu_memory_from_nvidia_smi(device=dev))
            return out, GPUStats(seconds, *get_gpu_memory_from_ipex(dev))
        return wrapper
    return decorator


def get_stats_summary(stats_list):
    times = torch.tensor([s.time for s in stats_list])
    common = [float(times.mean()), float(times.std()), max(s.max_allocated_gpu for s in stats_list),
              max(s.max_reserved_gpu for s in stats_list), max(s.max_active_gpu for s in stats_list)]
    if all(isinstance(s, CUDAStats) for s in stats_list):
        return CUDAStatsSummary(*common, min(s.nvidia_smi_free_cuda for s in stats_list),
                                max(s.nvidia_smi_used_cuda for s in stats_list))
    return GPUStatsSummary(*common)


def read_from_memlab(line_profiler):
    # PyG tabulates the records with pytorch_memlab's LineRecords (pandas) and takes each tracked
    # column's maximum; those maxima are the maxima over the raw records.
    import pytorch_memlab  # noqa: F401
    keys = ("allocated_bytes.all.peak", "reserved_bytes.all.peak", "active_bytes.all.peak")
    return [byte_to_megabyte(max(r[k] for r in line_profiler._raw_line_records)) for k in keys]


def print_time_total(p):
    print(p.key_averages().table(
        sort_by="self_cuda_time_total" if torch.cuda.is_available() else "self_cpu_time_total"))


def trace_handler(p):
    print_time_total(p)
    p.export_chrome_trace(os.getcwd() + "/timeline.json")


def rename_profile_file(*args):
    name = os.getcwd() + "/profile"
    for a in args:
        name += "-" + a
    os.rename("timeline.json", name + ".json")


@contextmanager
def torch_profile(export_chrome_trace=True, csv_data=None, write_csv=None):
    use_cuda = torch.cuda.is_available()
    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA] if use_cuda else [ProfilerActivity.CPU]
    p = profile(activities=acts, on_trace_ready=trace_handler if export_chrome_trace else print_time_total)
    with p:
        yield
        p.step()
    if csv_data is not None and write_csv == "prof":
        key = "self_cuda_time_total" if use_cuda else "self_cpu_time_total"
        # PyG wraps the sorted rows in EventList(rows, use_cuda=use_cuda). torch's EventList
        # stopped taking use_cuda in 2.x (torch 2.14 here raises TypeError at this point, after
        # the table and timeline.json): the rows are what PyG means to save, on either torch.
        events = sorted(p.key_averages(), key=lambda e: getattr(e, key), reverse=True)
        save_profile_data(csv_data, events, use_cuda)


@contextmanager
def xpu_profile(export_chrome_trace=True):
    with torch.autograd.profiler_legacy.profile(use_xpu=True) as p:
        yield
    print(p.key_averages().table(sort_by="self_xpu_time_total"))
    if export_chrome_trace:
        p.export_chrome_trace("timeline.json")


def save_profile_data(csv_data, events, use_cuda):
    # Both percentages divide by the summed *self* CPU time; the averages are the totals.
    total = sum(e.self_cpu_time_total for e in events)
    cuda_total = sum(e.self_cuda_time_total for e in events) if use_cuda else 0
    for e in events[:5]:
        row = [("NAME", e.key),
               ("SELF CPU %", round(e.self_cpu_time_total * 100.0 / total, 3)),
               ("SELF CPU", format_prof_time(e.self_cpu_time_total)),
               ("CPU TOTAL %", round(e.cpu_time_total * 100.0 / total, 3)),
               ("CPU TOTAL", format_prof_time(e.cpu_time_total)),
               ("CPU TIME AVG", format_prof_time(e.cpu_time_total))]
        if use_cuda:
            row += [("SELF CUDA %", e.self_cuda_time_total * 100.0 / cuda_total),
                    ("SELF CUDA", format_prof_time(e.self_cuda_time_total)),
                    ("CUDA TOTAL", format_prof_time(e.cpu_time_total)),
                    ("CUDA TIME AVG", format_prof_time(e.cpu_time_total))]
        row.append(("# OF CALLS", e.count))
        for k, v in row:
            csv_data[k].append(v)


# --- utils.py ----------------------------------------------------------------------------------

def count_parameters(model):
    return sum([p.numel() for p in model.parameters() if p.requires_grad])


def get_model_size(model):
    # PyG: torch.save to "<random>.pt" in the working directory, its size, then removed.
    path = "%d.pt" % (time.time_ns() % 10 ** 12)
    torch.save(model.state_dict(), path)
    size = os.path.getsize(path)
    os.remove(path)
    return size


def get_data_size(data):
    ptrs = set()

    def size(o):
        if isinstance(o, torch.Tensor):
            if o.data_ptr() in ptrs:
                return 0
            ptrs.add(o.data_ptr())
            return o.numel() * o.element_size()
        if hasattr(o, "csr"):  # torch_sparse.SparseTensor
            return size(o.csr())
        if isinstance(o, dict):
            return sum(size(v) for v in o.values())
        if isinstance(o, (list, tuple)):
            return sum(size(v) for v in o)
        return 0

    return sum(size(s) for s in data.stores)


def get_cpu_memory_from_gc():
    return sum(o.numel() * o.element_size() for o in gc.get_objects()
               if isinstance(o, torch.Tensor) and not o.is_cuda)


def get_gpu_memory_from_gc(device=0):
    return sum(o.numel() * o.element_size() for o in gc.get_objects()
               if isinstance(o, torch.Tensor) and o.get_device() == device)


def get_gpu_memory_from_nvidia_smi(device=0, digits=2):
    # Two calls (free, then used), "--format=csv": a header line, one line per GPU ("N MiB"), a
    # final newline. A figure that is not an integer counts as 0.
    def query(field):
        lines = subprocess.check_output(["nvidia-smi", "--query-gpu=" + field, "--format=csv"]) \
            .decode("utf-8").split("\n")[1:-1]
        values = []
        for ln in lines:
            try:
                values.append(int(ln.split()[0]))
            except (TypeError, ValueError):
                values.append(None)
        return values

    free, used = query("memory.free"), query("memory.used")
    if device < 0 or device >= len(free):
        raise AttributeError("GPU %d not available (found %d GPUs)" % (device, len(free)))
    mb = lambda v: 0 if v is None else medibyte_to_megabyte(v, digits)  # noqa: E731
    return mb(free[device]), mb(used[device])


def get_gpu_memory_from_ipex(device=0, digits=2):
    import intel_extension_for_pytorch as ipex
    stats = ipex.xpu.memory_stats_as_nested_dict(device)
    out = tuple(byte_to_megabyte(stats[k]["all"]["peak"], digits)
                for k in ("allocated_bytes", "reserved_bytes", "active_bytes"))
    ipex.xpu.reset_peak_memory_stats(device)
    return out


# --- benchmark.py, nvtx.py ---------------------------------------------------------------------

def _psql(header, rows):
    # tabulate(rows, headers=header, tablefmt="psql"): text cells left-aligned, each column at
    # least its header's width + 2, one space of padding, "+" corners, "|+|" under the header.
    cols = list(zip(header, *rows))
    widths = [max([len(c[0]) + 2] + [len(v) for v in c[1:]]) for c in cols]
    border = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    fmt = lambda cells: "|" + "|".join(" %-*s " % (w, c) for w, c in zip(widths, cells)) + "|"  # noqa: E731
    return "\n".join([border, fmt(header), "|" + border[1:-1] + "|"] + [fmt(r) for r in rows] + [border])


def benchmark(funcs, args, num_steps, func_names=None, num_warmups=10, backward=False, per_step=False,
              progress_bar=False):
    if num_steps <= 0:
        raise ValueError("'num_steps' must be a positive integer (got %d)" % num_steps)
    if num_warmups <= 0:
        raise ValueError("'num_warmups' must be a positive integer (got %d)" % num_warmups)
    if func_names is None:
        func_names = [f.__name__ for f in funcs]
    if len(funcs) != len(func_names):
        raise ValueError("Length of 'funcs' and 'func_names' must be equal")
    args_list = args if isinstance(args, list) else [args] * len(funcs)
    rows = []
    for func, inputs, name in zip(funcs, args_list, func_names):
        fwd = bwd = 0.0
        for i in range(num_warmups + num_steps):
            a = inputs() if callable(inputs) else inputs
            a = tuple(x.detach().requires_grad_(backward) if isinstance(x, torch.Tensor) and x.is_floating_point()
                      else x for x in a)
            t = time.perf_counter()
            out = func(*a)
            if i >= num_warmups:
                fwd += time.perf_counter() - t
            if backward:
                if isinstance(out, (tuple, list)):
                    out = sum(o.sum() for o in out if isinstance(o, torch.Tensor))
                t = time.perf_counter()
                out.backward(torch.randn_like(out))
                if i >= num_warmups:
                    bwd += time.perf_counter() - t
        if per_step:
            row = [name, "%.6fs" % (fwd / num_steps)] + (
                ["%.6fs" % (bwd / num_steps), "%.6fs" % ((fwd + bwd) / num_steps)] if backward else [])
        else:
            row = [name, "%.4fs" % fwd] + (["%.4fs" % bwd, "%.4fs" % (fwd + bwd)] if backward else [])
        rows.append(row)
    print(_psql(["Name", "Forward"] + (["Backward", "Total"] if backward else []), rows))


_started = False


def nvtxit(name=None, n_warmups=0, n_iters=None):
    # Without CUDA a plain call. With it: warmup calls counted and passed through, then calls
    # pushed as NVTX "<name>_<count>" ranges, the outermost one between cudaProfilerStart/Stop.
    def wrap(func):
        label = name or func.__name__
        count = [0]

        def wrapper(*args, **kwargs):
            global _started
            if not torch.cuda.is_available():
                return func(*args, **kwargs)
            if count[0] < n_warmups:
                count[0] += 1
                return func(*args, **kwargs)
            if n_iters is not None and count[0] >= n_iters + n_warmups:
                return func(*args, **kwargs)
            prev = _started
            if not prev:
                _started = True
                torch.cuda.cudart().cudaProfilerStart()
            torch.cuda.nvtx.range_push("%s_%d" % (label, count[0]))
            out = func(*args, **kwargs)
            torch.cuda.nvtx.range_pop()
            _started = prev
            if not prev:
                torch.cuda.cudart().cudaProfilerStop()
            count[0] += 1
            return out

        wrapper.__name__ = func.__name__
        return wrapper
    return wrap
