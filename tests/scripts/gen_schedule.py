#!/usr/bin/python3
"""Records real torch.profiler schedule behaviour as test data for tst_schedule.

Run with the Debian torch 1.13 interpreter:
    /usr/bin/python3 tests/scripts/gen_schedule.py > tests/data/schedule/torch113_schedule.json

For a grid of schedule parameters it stores torch's ProfilerAction for steps 0..39, and for a subset
it drives a real torch.profiler.profile through start/step/stop with the trace hooks replaced by
loggers, recording every transition action (prepare/start/stop/ready/warn) with the profiler's
step_num at that moment. torch 1.13 has no skip_first_wait; those cases are covered by the values
the spec tabulates (checked in the test itself).
"""
import itertools
import json
import warnings

import torch.profiler as tp

STEPS = 40


def actions(params):
    s = tp.schedule(**params)
    return [int(s(i).value) for i in range(STEPS)]


def drive(params, steps):
    log = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prof = tp.profile(activities=[tp.ProfilerActivity.CPU], schedule=tp.schedule(**params),
                          on_trace_ready=lambda p: log.append(["ready", p.step_num]))
        # Replace the expensive trace hooks by loggers; action_map holds bound methods, so patch it.
        def logger(name):
            return lambda: log.append([name, prof.step_num])
        names = {prof.prepare_trace: "prepare", prof.start_trace: "start", prof.stop_trace: "stop"}
        for key, acts in prof.action_map.items():
            new = []
            for a in acts:
                if a in names:
                    new.append(logger(names[a]))
                elif hasattr(a, "func") and a.func.__name__ == "warn":
                    msg = a.args[0]
                    new.append(lambda msg=msg: log.append(["warn", msg, prof.step_num]))
                else:
                    new.append(a)
            prof.action_map[key] = new
        prof.start()
        for _ in range(steps):
            prof.step()
        prof.stop()
    return log


grid = []
for wait, warmup, active, repeat, skip_first in itertools.product([0, 1, 2], [0, 1, 2], [1, 2, 3], [0, 1, 2],
                                                                  [0, 1, 3]):
    params = dict(wait=wait, warmup=warmup, active=active, repeat=repeat, skip_first=skip_first)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grid.append({"params": params, "actions": actions(params)})

drives = []
for params, steps in [
    (dict(wait=1, warmup=1, active=2, repeat=2), 12),
    (dict(wait=0, warmup=0, active=1, repeat=0), 5),
    (dict(wait=2, warmup=1, active=3, repeat=1, skip_first=2), 14),
    (dict(wait=1, warmup=0, active=1, repeat=3), 9),
    (dict(wait=0, warmup=2, active=2, repeat=0), 10),
    (dict(wait=1, warmup=1, active=2, repeat=1), 2),   # stopped during warmup
    (dict(wait=1, warmup=1, active=3, repeat=1), 3),   # stopped while recording
]:
    drives.append({"params": params, "steps": steps, "log": drive(params, steps)})

print(json.dumps({"torch": __import__("torch").__version__, "steps": STEPS, "grid": grid, "drives": drives},
                 indent=1))
