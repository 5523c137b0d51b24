#!/usr/bin/python3
"""Profiles small models with the running torch and writes each trace with the tables torch printed.

    torch_summary_cases.py OUTDIR

For tests/scripts/test_summary_torch2.sh. Runs several CPU workloads under torch.profiler (an MLP,
conv + batchnorm, a transformer encoder, an LSTM, nested record_function ranges, with and without
profile_memory, with_stack, with_flops, a schedule, threads, indexing with with_modules, TorchScript)
and, for each table case, writes:

  OUTDIR/NAME.txt     prof.key_averages(...).table(...), printed by torch;
  OUTDIR/NAME.args    the `kinetoscope summary` arguments for the same table, one per line, the
                      trace first;
and one OUTDIR/TRACE.json per workload. OUTDIR/cases.txt lists the case names, in order; a case
this torch cannot print is left out with a line "SKIP NAME: reason" on stdout.

torch 2.x writes its own Kineto trace (prof.export_chrome_trace). Debian's torch 1.13 has no Kineto:
its export_chrome_trace writes the legacy format without args, so the trace is written here from the
profiler's own results (the KinetoEvents the table is computed from), as a torch 1.13 Kineto build
writes them: cpu_op / user_annotation slices with "Input Dims", "Call stack", "Sequence number" and
"Fwd thread id", and "[memory]" instants with "Bytes" and "Device Type". Times are torch's, in µs.
"""

import json
import os
import sys
import threading

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

TORCH2 = int(torch.__version__.split(".")[0]) >= 2
USER_SCOPE = 7  # at::RecordScope::USER_SCOPE: record_function and ProfilerStep#N


def write_113_trace(prof, path, flags):
    """A torch 1.13 Kineto-style trace of the profiler's results (see the module's text)."""
    events = []
    for e in prof.profiler.kineto_results.events():
        name = e.name()
        tid = e.start_thread_id()
        if name in ("[memory]", "[OutOfMemory]"):
            events.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": name, "pid": 1, "tid": tid,
                           "ts": e.start_us(),
                           "args": {"Device Type": int(e.device_type()), "Device Id": e.device_index(),
                                    "Bytes": e.nbytes()}})
            continue
        args = {}
        # torch records shapes for with_flops too (its FLOPs come from them).
        if flags.get("record_shapes") or flags.get("with_flops"):
            args["Input Dims"] = e.shapes()
        if e.stack():
            args["Call stack"] = ";".join(e.stack())
        if e.sequence_nr() >= 0:
            args["Fwd thread id"] = e.fwd_thread_id()
            args["Sequence number"] = e.sequence_nr()
        cat = "user_annotation" if e.scope() == USER_SCOPE else "cpu_op"
        events.append({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": e.start_us(),
                       "dur": e.duration_us(), "args": args})
    doc = {"schemaVersion": 1}
    doc.update({k: 1 for k, v in flags.items() if v and k != "schedule"})
    doc["traceEvents"] = events
    with open(path, "w") as f:
        json.dump(doc, f)


def export(prof, path, flags):
    if TORCH2:
        prof.export_chrome_trace(path)
    else:
        write_113_trace(prof, path, flags)


# --- workloads: each runs under the profiler; `step` is prof.step ---------------------------------

def train(model, inputs, steps=2, step=None):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(steps):
        loss = model(*inputs).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step:
            step()


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10)), (torch.randn(16, 32),)


def run_mlp(step=None):
    model, x = mlp()
    train(model, x, steps=3 if step else 2, step=step)


def run_conv_bn(step=None):
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                                torch.nn.Conv2d(8, 4, 3, stride=2), torch.nn.Flatten())
    train(model, (torch.randn(4, 3, 12, 12),))


def run_transformer(step=None):
    layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0)
    model = torch.nn.TransformerEncoder(layer, num_layers=2).eval()
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(6, 2, 32))


def run_lstm(step=None):
    lstm = torch.nn.LSTM(16, 24, num_layers=2)
    x = torch.randn(4, 10, 16)
    for _ in range(2):
        out, _ = lstm(x)
        out.sum().backward()


def run_nested(step=None):
    x = torch.randn(32, 32)
    for i in range(2):
        with record_function("outer"):
            with record_function("inner.prepare"):
                y = torch.cat([x, x * 2]).relu()
                z = torch.stack([y, y]).sum(0)
            with record_function("inner.compute"):
                w = torch.mm(z.t(), z)
                with record_function("innermost"):
                    w = w.softmax(-1)
            torch.add(w, 1.0)


def run_flops(step=None):
    conv = torch.nn.Conv2d(3, 6, 3, stride=1, padding=1)
    a, b = torch.randn(24, 48), torch.randn(48, 16)
    x = torch.randn(2, 3, 10, 10)
    bias = torch.randn(16)
    for _ in range(2):
        # With its backward pass: torch 1.13's traces keep no stride or padding, and the output
        # size comes from the conv's backward function (docs/summary.md, FLOPs).
        conv(x).sum().backward()
        torch.mm(a, b)
        torch.addmm(bias, a, b)
        torch.bmm(torch.randn(3, 8, 5), torch.randn(3, 5, 7))
        torch.mul(a, a)
        torch.add(b, b)


def run_threads(step=None):
    def work(n):
        m = torch.randn(n, n)
        for _ in range(3):
            m = torch.mm(m, m).tanh()

    threads = [threading.Thread(target=work, args=(n,)) for n in (24, 40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    work(16)


class Indexing(torch.nn.Module):
    """Embedding, advanced indexing (a List[Optional[Tensor]] argument) and log_softmax."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 16)
        self.fc = torch.nn.Linear(16, 8)

    def forward(self, idx):
        h = self.emb(idx)[torch.tensor([0, 2]), :]
        return self.fc(h).log_softmax(-1)


def run_indexing(step=None):
    train(Indexing(), (torch.randint(0, 50, (4, 6)),))


def run_scripted(step=None):
    # TorchScript ops carry their own "Call stack" (the only stacks torch 2.x puts on ops).
    model = torch.jit.script(torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU()))
    for _ in range(2):
        model(torch.randn(4, 8)).sum().backward()


def run_threads_training(step=None):
    def work():
        model, x = mlp()
        train(model, x)

    t = threading.Thread(target=work)
    t.start()
    work()
    t.join()


def run_scheduled(step):
    model, x = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(5):
        with record_function("forward"):
            loss = model(*x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        step()


# (trace, workload, profile flags, [(case, key_averages kwargs, table kwargs)])
ALL = dict(row_limit=-1)
WORKLOADS = [
    ("mlp", run_mlp, dict(record_shapes=True), [
        ("mlp-cpu-total", {}, dict(sort_by="cpu_time_total", **ALL)),
        ("mlp-shapes-self", dict(group_by_input_shape=True), dict(sort_by="self_cpu_time_total", **ALL)),
        ("mlp-top-level", {}, dict(sort_by="cpu_time_total", top_level_events_only=True, **ALL)),
        ("mlp-count-header", {}, dict(sort_by="count", row_limit=12, header="MLP training")),
        ("mlp-cpu-avg", {}, dict(sort_by="cpu_time", **ALL)),
    ]),
    ("convbn", run_conv_bn, dict(record_shapes=True, profile_memory=True), [
        ("convbn-self-mem", {}, dict(sort_by="self_cpu_memory_usage", **ALL)),
        ("convbn-mem-shapes", dict(group_by_input_shape=True), dict(sort_by="cpu_memory_usage", **ALL)),
        ("convbn-default", {}, dict(**ALL)),
    ]),
    ("transformer", run_transformer, dict(record_shapes=True), [
        ("transformer-shapes", dict(group_by_input_shape=True), dict(sort_by="cpu_time_total", **ALL)),
        ("transformer-avg", {}, dict(sort_by="cpu_time", row_limit=30)),
    ]),
    ("lstm", run_lstm, dict(record_shapes=True), [
        ("lstm-shapes", dict(group_by_input_shape=True), dict(sort_by="self_cpu_time_total", **ALL)),
        ("lstm-count", {}, dict(sort_by="count", **ALL)),
    ]),
    ("nested", run_nested, dict(record_shapes=True), [
        ("nested-top", {}, dict(sort_by="cpu_time_total", top_level_events_only=True, **ALL)),
        ("nested-default", {}, dict(**ALL)),
    ]),
    ("nestedmem", run_nested, dict(profile_memory=True), [
        ("nested-mem", {}, dict(sort_by="self_cpu_memory_usage", **ALL)),
        ("nested-mem-top", {}, dict(sort_by="cpu_memory_usage", top_level_events_only=True, **ALL)),
    ]),
    ("stack", run_mlp, dict(record_shapes=True, with_stack=True), [
        ("stack-n5", dict(group_by_stack_n=5), dict(sort_by="self_cpu_time_total", **ALL)),
        ("stack-n8", dict(group_by_stack_n=8), dict(sort_by="cpu_time_total", row_limit=15)),
        ("stack-top", {}, dict(sort_by="cpu_time_total", top_level_events_only=True, **ALL)),
        ("stack-self", {}, dict(sort_by="self_cpu_time_total", **ALL)),
    ]),
    ("flops", run_flops, dict(record_shapes=True, with_flops=True), [
        ("flops-sort", {}, dict(sort_by="flops", **ALL)),
        ("flops-shapes", dict(group_by_input_shape=True), dict(sort_by="flops", **ALL)),
    ]),
    ("scheduled", run_scheduled, dict(record_shapes=True, profile_memory=True, with_stack=True, schedule=True), [
        ("sched-self", {}, dict(sort_by="self_cpu_time_total", **ALL)),
        ("sched-ms", {}, dict(sort_by="cpu_time_total", row_limit=20, time_unit="ms")),
        ("sched-shapes", dict(group_by_input_shape=True), dict(sort_by="cpu_memory_usage", row_limit=25)),
        ("sched-top", {}, dict(sort_by="self_cpu_memory_usage", top_level_events_only=True, **ALL)),
    ]),
    ("threads", run_threads, {}, [
        ("threads-total", {}, dict(sort_by="cpu_time_total", **ALL)),
    ]),
    ("indexing", run_indexing, dict(record_shapes=True, profile_memory=True, with_modules=True), [
        ("indexing-shapes", dict(group_by_input_shape=True), dict(sort_by="cpu_time_total", **ALL)),
        ("indexing-top", {}, dict(sort_by="self_cpu_memory_usage", top_level_events_only=True, **ALL)),
    ]),
    ("scripted", run_scripted, dict(record_shapes=True, with_stack=True), [
        ("scripted-stack", dict(group_by_stack_n=5), dict(sort_by="self_cpu_time_total", **ALL)),
    ]),
    ("threadstack", run_threads_training, dict(with_stack=True, profile_memory=True, with_flops=True), [
        ("threadstack-self", {}, dict(sort_by="self_cpu_time_total", **ALL)),
        ("threadstack-top", {}, dict(sort_by="cpu_time_total", top_level_events_only=True, **ALL)),
    ]),
]


def cli_args(trace, ka, ta):
    args = [trace]
    if ka.get("group_by_input_shape"):
        args.append("--group-by-input-shape")
    if ka.get("group_by_stack_n"):
        args += ["--group-by-stack-n", str(ka["group_by_stack_n"])]
    if ta.get("sort_by"):
        args += ["--sort-by", ta["sort_by"]]
    args += ["--row-limit", str(ta.get("row_limit", 100))]
    if ta.get("top_level_events_only"):
        args.append("--top-level-only")
    if ta.get("header") is not None:
        args += ["--header", ta["header"]]
    if ta.get("time_unit"):
        args += ["--time-unit", ta["time_unit"]]
    return args


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    names = []
    for trace, workload, flags, cases in WORKLOADS:
        path = os.path.join(out, trace + ".json")
        kwargs = {k: v for k, v in flags.items() if k != "schedule"}
        done = []

        def tables(p):
            for name, ka, ta in cases:
                if "time_unit" in ta and not TORCH2:
                    print(f"SKIP {name}: torch {torch.__version__}'s table() has no time_unit")
                    continue
                with open(os.path.join(out, name + ".txt"), "w") as f:
                    f.write(p.key_averages(**ka).table(**ta))
                with open(os.path.join(out, name + ".args"), "w") as f:
                    f.write("\n".join(cli_args(path, ka, ta)) + "\n")
                names.append(name)
            export(p, path, flags)
            done.append(True)

        if flags.get("schedule"):
            # One window (wait 1, warmup 1, active 2); its trace and tables come from the handler.
            with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
                         on_trace_ready=tables, **kwargs) as prof:
                workload(prof.step)
        else:
            with profile(activities=[ProfilerActivity.CPU], **kwargs) as prof:
                workload()
            tables(prof)
        if not done:
            print(f"FAIL {trace}: no trace was handed to on_trace_ready", file=sys.stderr)
            return 1
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
