"""Kinetoscope recording for Python: ranges, marks, counters and a drop-in torch.profiler.

    import kinetoscope as ks

    with ks.profile(schedule=ks.schedule(wait=1, warmup=1, active=2),
                    on_trace_ready=ks.tensorboard_trace_handler("./log")) as prof:
        for batch in data:
            with ks.record_function("load"):
                x = prepare(batch)
            train_step(x)
            prof.step()

profile, record_function, schedule, ProfilerActivity, ProfilerAction, tensorboard_trace_handler and
supported_activities take torch.profiler's arguments. With torch imported, torch's operators are
recorded natively by libkinetoscope_torch.so when it is installed. Works without torch. The
library is found next to this package, through KINETOSCOPE_LIB, or by its soname.

torch.profiler's other names (DeviceType, RecordScope, itt, kineto_available, KinetoStepTracker,
ExecutionTraceObserver / ExecutionGraphObserver) are the running torch's own objects, re-exported
on first use: importing kinetoscope does not import torch.
"""
from ._lib import KinetoscopeError
from .actions import ProfilerAction, ProfilerActivity, schedule, supported_activities
from .bench import StatsSummary, get_stats_summary, profileit, timeit, write_csv
from .profiler import profile, record_function, tensorboard_trace_handler
from .ranges import counter, free, intern, mark, malloc, range, recording, set_thread_name

__all__ = [
    "KinetoscopeError", "ProfilerAction", "ProfilerActivity", "StatsSummary", "counter", "free",
    "get_stats_summary", "intern", "malloc", "mark", "profile", "profileit", "range", "record_function",
    "recording", "schedule", "set_thread_name", "supported_activities", "tensorboard_trace_handler", "timeit",
    "write_csv",
]

# torch_geometric.profile's names (docs/pyg-profile.md): `import kinetoscope as profile` runs a PyG
# benchmark script with Kinetoscope recording. timeit, profileit and get_stats_summary are above.
from .pygprofile import (CUDAStats, CUDAStatsSummary, DeviceUnavailableError, GPUStats, GPUStatsSummary,
                         TimerNotStarted, format_prof_time, print_time_total, read_from_memlab,
                         rename_profile_file, save_profile_data, torch_profile, trace_handler, xpu_profile)
from .pygutils import (benchmark, byte_to_megabyte, count_parameters, get_cpu_memory_from_gc, get_data_size,
                       get_gpu_memory_from_gc, get_gpu_memory_from_ipex, get_gpu_memory_from_nvidia_smi,
                       get_model_size, medibyte_to_megabyte, nvtxit)

__all__ += [
    "CUDAStats", "CUDAStatsSummary", "DeviceUnavailableError", "GPUStats", "GPUStatsSummary", "TimerNotStarted",
    "benchmark", "byte_to_megabyte", "count_parameters", "format_prof_time", "get_cpu_memory_from_gc",
    "get_data_size", "get_gpu_memory_from_gc", "get_gpu_memory_from_ipex", "get_gpu_memory_from_nvidia_smi",
    "get_model_size", "medibyte_to_megabyte", "nvtxit", "print_time_total", "read_from_memlab",
    "rename_profile_file", "save_profile_data", "torch_profile", "trace_handler", "xpu_profile",
]

import sys as _sys  # noqa: E402

# torch.profiler's names that are torch's own objects and do not depend on who records: the running
# torch's, looked up when first asked for (module __getattr__), so that importing kinetoscope does
# not import torch. A name the running torch's torch.profiler lacks (ExecutionTraceObserver under
# torch 1.13, ExecutionGraphObserver under 2.x) is missing here too. Not in __all__: a star import
# would have to import torch to list them.
_TORCH_PROFILER_NAMES = ("DeviceType", "ExecutionGraphObserver", "ExecutionTraceObserver", "KinetoStepTracker",
                         "RecordScope", "itt", "kineto_available")


def __getattr__(name):
    if name not in _TORCH_PROFILER_NAMES:
        raise AttributeError(f"module 'kinetoscope' has no attribute {name!r}")
    try:
        import torch.profiler
    except ImportError as e:
        raise AttributeError(f"kinetoscope.{name} is torch.profiler.{name}, and torch cannot be imported: {e}") \
            from None
    try:
        value = getattr(torch.profiler, name)
    except AttributeError:
        raise AttributeError(f"module 'kinetoscope' has no attribute {name!r} (torch {torch.__version__}'s "
                             "torch.profiler has none either)") from None
    globals()[name] = value
    return value


def __dir__():
    names = set(globals())
    tp = _sys.modules.get("torch.profiler")
    if tp is not None:
        names.update(n for n in _TORCH_PROFILER_NAMES if hasattr(tp, n))
    return sorted(names)
