"""Kinetoscope recording for Python: ranges, marks, counters and a torch.profiler-shaped profiler.

    import kinetoscope as ks

    with ks.profile(schedule=ks.schedule(wait=1, warmup=1, active=2),
                    on_trace_ready=ks.tensorboard_trace_handler("./log")) as prof:
        for batch in data:
            with ks.range("load"):
                x = prepare(batch)
            train_step(x)
            prof.step()

Works without torch. The library is found next to this package, through KINETOSCOPE_LIB, or by
its soname.
"""
from ._lib import KinetoscopeError
from .bench import StatsSummary, get_stats_summary, profileit, timeit, write_csv
from .profiler import ProfilerAction, profile, schedule, tensorboard_trace_handler
from .ranges import counter, free, intern, mark, malloc, range, recording, set_thread_name

__all__ = [
    "KinetoscopeError", "ProfilerAction", "StatsSummary", "counter", "free", "get_stats_summary", "intern",
    "malloc", "mark", "profile", "profileit", "range", "recording", "schedule", "set_thread_name",
    "tensorboard_trace_handler", "timeit", "write_csv",
]
