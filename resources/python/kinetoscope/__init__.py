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
