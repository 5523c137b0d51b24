"""Per-op overhead of the torch observer (libkinetoscope_torch.so under kinetoscope.profile) against
torch.profiler, on a model of many small CPU ops, in one run.

    KINETOSCOPE_LIB=build/core/capi/libkinetoscope.so.1 PYTHONPATH=resources/python \\
        /usr/bin/python3 bench/torchobs_bench.py [--model mlp|smallops] [--iters N] [--rounds R]

Models: "mlp" a training step of a DEPTH-layer WIDTH-wide MLP (linear, relu, autograd nodes, SGD);
"smallops" an inference step of 200 elementwise and view calls on a 16-element tensor (600 ops with
the ones they call, no autograd):
the shortest ops torch has, where a profiler's fixed cost per op shows most.

For each profiler (none, torch.profiler, kinetoscope; record_shapes off and on, with_stack on) the
same training step runs N times per round; rounds alternate between the profilers so machine noise
hits all of them alike, and the median round is kept. Reported per op: the loop's extra time over the
unprofiled loop ("hot"), and the same including the profiler's stop() (torch builds its event list
there, kinetoscope its trace), divided by the ops recorded per step (counted by kinetoscope). The
hot loop is timed in thread CPU time, loop + stop() in wall time.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import torch

import kinetoscope
import kinetoscope.torchobserver

p = argparse.ArgumentParser()
p.add_argument("--iters", type=int, default=200)
p.add_argument("--rounds", type=int, default=7)
p.add_argument("--width", type=int, default=8)
p.add_argument("--depth", type=int, default=12)
p.add_argument("--model", choices=("mlp", "smallops"), default="mlp")
args = p.parse_args()
export_path = os.path.join(tempfile.mkdtemp(prefix="torchobs_bench."), "trace.json")

torch.manual_seed(0)
torch.set_num_threads(1)
layers = []
for _ in range(args.depth):
    layers += [torch.nn.Linear(args.width, args.width), torch.nn.ReLU()]
model = torch.nn.Sequential(*layers)
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(4, args.width)


def mlp_step():
    opt.zero_grad()
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    return loss


small = torch.randn(16)


@torch.no_grad()
def smallops_step():
    y = small
    for _ in range(25):  # 8 ops each
        y = torch.add(y, 1.0)
        y = y.mul(0.5)
        y = torch.sin(y)
        y = torch.relu(y)
        y = y.view(4, 4)
        y = y.t()
        y = y.reshape(16)
        y = torch.neg(y)
    return y


train_step = mlp_step if args.model == "mlp" else smallops_step


def run(make):
    """The loop's CPU seconds on this thread (everything runs on it: one intra-op thread, CPU
    autograd runs on the caller), which a machine shared with other work disturbs less than wall
    time; the wall seconds of loop + stop() (kinetoscope builds its trace on several threads); and
    those of the whole window: loop + stop() + export_chrome_trace() (what a profiled run pays for
    the file it wants)."""
    prof = make()
    if prof is not None:
        prof.__enter__()
    w0 = time.perf_counter()
    t0 = time.thread_time()
    for _ in range(args.iters):
        train_step()
    t1 = time.thread_time()
    if prof is not None:
        prof.__exit__(None, None, None)
    w2 = time.perf_counter()
    if prof is not None and hasattr(prof, "export_chrome_trace"):
        prof.export_chrome_trace(export_path)
    w3 = time.perf_counter()
    return t1 - t0, w2 - w0, w3 - w0, prof


CPU = torch.profiler.ProfilerActivity.CPU
configs = {
    "none": lambda: None,
    "torch": lambda: torch.profiler.profile(activities=[CPU]),
    "kinetoscope": lambda: kinetoscope.profile(activities=["cpu"]),
    "torch shapes": lambda: torch.profiler.profile(activities=[CPU], record_shapes=True),
    "kinetoscope shapes": lambda: kinetoscope.profile(activities=["cpu"], record_shapes=True),
    # with_stack: each op's Python stack; both pay for a profile function on every Python call too
    # (module forwards, optimizer, autograd's Python side), which the per-op figure includes.
    "torch stack": lambda: torch.profiler.profile(activities=[CPU], with_stack=True),
    "kinetoscope stack": lambda: kinetoscope.profile(activities=["cpu"], with_stack=True),
    # The observer's callback registered but nothing recording: torch's RecordFunction machinery
    # plus one check per op, the floor under both profilers' hot cost.
    "observer idle": lambda: _Idle(),
}


class _Idle:
    def __enter__(self):
        self.token, _ = kinetoscope.torchobserver.acquire({})
        return self

    def __exit__(self, *exc):
        kinetoscope.torchobserver.release(self.token)

# Ops per step, and a check that the observer is recording them.
_, _, _, prof = run(configs["kinetoscope"])
ops = sum(e.count for e in prof.key_averages() if e.key.startswith(("aten::", "autograd::")) or
          e.key.endswith("Backward0") or e.key == "torch::autograd::AccumulateGrad")
if ops == 0:
    sys.exit("the observer recorded no ops (libkinetoscope_torch.so not found?): "
             f"{kinetoscope.torchobserver.load_error()}")
ops_per_step = ops / args.iters

hot = {k: [] for k in configs}
total = {k: [] for k in configs}
window = {k: [] for k in configs}
for _ in range(args.rounds):
    for name, make in configs.items():
        h, t, w, _ = run(make)
        hot[name].append(h)
        total[name].append(t)
        window[name].append(w)

base_hot = statistics.median(hot["none"])
base_total = statistics.median(total["none"])
base_window = statistics.median(window["none"])
print(f"model {args.model}: torch {torch.__version__}, {ops_per_step:.0f} ops per step, {args.iters} steps x {args.rounds} rounds "
      f"(median); unprofiled {base_hot / args.iters / ops_per_step * 1e9:.0f} ns per op")
print(f"{'profiler':<20}{'hot ns/op (CPU)':>16}{'with stop ns/op (wall)':>24}{'+ export ns/op (wall)':>24}")
per_op = {}
for name in configs:
    if name == "none":
        continue
    h = (statistics.median(hot[name]) - base_hot) / args.iters / ops_per_step * 1e9
    t = (statistics.median(total[name]) - base_total) / args.iters / ops_per_step * 1e9
    w = (statistics.median(window[name]) - base_window) / args.iters / ops_per_step * 1e9
    per_op[name] = (h, t, w)
    print(f"{name:<20}{h:>16.0f}{t:>24.0f}{w:>24.0f}")
for suffix in ("", " shapes", " stack"):
    th, tt, tw = per_op["torch" + suffix]
    kh, kt, kw = per_op["kinetoscope" + suffix]
    print(f"ratio kinetoscope/torch{suffix or ' (no shapes)'}: hot {kh / th:.2f}, with stop {kt / tt:.2f}, "
          f"with stop + export {kw / tw:.2f}")
