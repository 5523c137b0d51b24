#!/usr/bin/python3
"""Profiles a tiny training run with real torch and writes torch's own outputs next to its trace.

    torch_run.py OUTDIR

Runs two SGD steps of conv2d + relu + linear under torch.profiler.profile(record_shapes=True,
with_stack=True, with_flops=True) on the CPU and writes:
  OUTDIR/trace.json   the run's events as a Kineto-style Chrome trace (see below);
  OUTDIR/table.txt    prof.key_averages(group_by_stack_n=5).table(sort_by="self_cpu_time_total",
                      row_limit=-1), printed by torch;
  OUTDIR/stacks.txt   prof.export_stacks(path, "self_cpu_time_total"), written by torch.

Debian's torch 1.13 has no Kineto: its export_chrome_trace writes the legacy format, whose events
have no args at all. So the trace is written here from the very events torch's table is computed
from (the profiler's FunctionEvents, taken before EventList._build_tree() changes them), with the
args a Kineto trace of torch 1.13 has for them: "Input Dims", "Call stack" (innermost frame first,
';'-joined), and "Sequence number" / "Fwd thread id" for ops with a sequence number. Like 1.13
traces it has no "Concrete Inputs" and no FLOPs. Times are torch's, in µs.
"""

import json
import os
import sys

import torch
from torch.autograd.profiler_util import EventList
from torch.profiler import ProfilerActivity, profile

raw = []
_build_tree = EventList._build_tree


def _snapshot_then_build(self):
    # _build_tree() drops duplicate children and rewrites backward stacks: keep what torch recorded.
    if not raw:
        raw.extend((e, list(e.stack)) for e in self)
    _build_tree(self)


EventList._build_tree = _snapshot_then_build


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, stride=2, padding=1),
        torch.nn.ReLU(),
        torch.nn.Flatten(),
        torch.nn.Linear(4 * 4 * 4, 10),
    )
    x = torch.randn(2, 3, 8, 8)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_stack=True, with_flops=True) as prof:
        for _ in range(2):
            loss = model(x).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()

    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(prof.key_averages(group_by_stack_n=5).table(sort_by="self_cpu_time_total", row_limit=-1))
    prof.export_stacks(os.path.join(out, "stacks.txt"), "self_cpu_time_total")

    events = []
    for e, stack in raw:
        args = {"Input Dims": e.input_shapes}
        if stack:
            args["Call stack"] = ";".join(stack)
        if e.sequence_nr >= 0:
            args["Fwd thread id"] = e.fwd_thread
            args["Sequence number"] = e.sequence_nr
        cat = "user_annotation" if "#" in e.name else "cpu_op"
        start, end = e.time_range.start, e.time_range.end
        events.append({"ph": "X", "cat": cat, "name": e.name, "pid": 1, "tid": e.thread,
                       "ts": start, "dur": end - start, "args": args})
    doc = {"schemaVersion": 1, "record_shapes": 1, "with_stack": 1, "with_flops": 1, "traceEvents": events}
    with open(os.path.join(out, "trace.json"), "w") as f:
        json.dump(doc, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
