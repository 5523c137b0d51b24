"""A small CUDA training loop for the GPU check (tests/gpu/check.sh): convolutions, linear layers, a
scaled_dot_product_attention call, a host-to-device copy from pinned memory, a loss read back to the
host, an optimizer step; no NCCL. The same steps run in every mode so the traces can be compared
step for step: each measured step is inside record_function("ks_step_<i>").

usage: train_loop.py --mode plain|torch|kinetoscope [--out DIR] [--device cuda|cpu]
                     [--steps N] [--warmup N] [--sleep-ms MS]

plain        no profiler in the script (run it under `kinetoscope record`, or alone as the baseline)
torch        torch.profiler (CPU+CUDA, record_shapes, profile_memory) around the measured steps:
             DIR/torch.pt.trace.json and DIR/torch.table.txt (its key_averages().table())
kinetoscope  the same code with `import kinetoscope as profiler_module` swapped in:
             DIR/kinetoscope.pt.trace.json and DIR/kinetoscope.table.txt

Prints one JSON line "timing: {...}" with the measured steps' wall times (each ends with a device
synchronize) so the overhead of each way of recording can be set against the plain run.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.nn.functional as F


class Block(torch.nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.norm = torch.nn.LayerNorm(dim)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(), torch.nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(x)


class Net(torch.nn.Module):
    def __init__(self, dim=256, heads=4, classes=10):
        super().__init__()
        self.conv = torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
                                        torch.nn.Conv2d(32, 64, 3, stride=2, padding=1), torch.nn.ReLU())
        self.embed = torch.nn.Linear(64, dim)
        self.block = Block(dim, heads)
        self.head = torch.nn.Linear(dim, classes)

    def forward(self, img):
        f = self.conv(img)  # b, 64, side/2, side/2
        tokens = self.embed(f.flatten(2).transpose(1, 2))  # b, side²/4, dim
        return self.head(self.block(tokens).mean(dim=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=("plain", "torch", "kinetoscope"), default="plain")
    ap.add_argument("--out", default=".")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--sleep-ms", type=float, default=0.0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--image", type=int, default=32, help="image side (a CPU dry run uses a small one)")
    args = ap.parse_args()
    dev = torch.device(args.device)
    cuda = dev.type == "cuda"
    torch.manual_seed(0)
    # Fixed algorithms, so the three runs launch the same kernels.
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True

    model = Net().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    host_x = torch.randn(args.batch, 3, args.image, args.image)
    host_y = torch.randint(0, 10, (args.batch,))
    if cuda:
        host_x, host_y = host_x.pin_memory(), host_y.pin_memory()

    def sync():
        if cuda:
            torch.cuda.synchronize()

    record_function = ks.record_function if args.mode == "kinetoscope" else torch.profiler.record_function

    def step(i):
        with record_function(f"ks_step_{i}"):
            x = host_x.to(dev, non_blocking=True)
            y = host_y.to(dev, non_blocking=True)
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            value = loss.item()  # device-to-host copy and a sync
        sync()
        if args.sleep_ms:
            time.sleep(args.sleep_ms / 1000.0)
        return value

    for i in range(args.warmup):
        step(-1 - i)
    sync()

    times = []
    prof = None
    if args.mode == "plain":
        for i in range(args.steps):
            t0 = time.perf_counter()
            loss = step(i)
            times.append(time.perf_counter() - t0)
            print(f"step {i} loss {loss:.4f}", flush=True)
    else:
        if args.mode == "torch":
            profiler_module = torch.profiler
        else:
            profiler_module = ks
        acts = [profiler_module.ProfilerActivity.CPU]
        if cuda:
            acts.append(profiler_module.ProfilerActivity.CUDA)
        with profiler_module.profile(activities=acts, record_shapes=True, profile_memory=True) as prof:
            for i in range(args.steps):
                t0 = time.perf_counter()
                loss = step(i)
                times.append(time.perf_counter() - t0)
                prof.step()
                print(f"step {i} loss {loss:.4f}", flush=True)
        os.makedirs(args.out, exist_ok=True)
        trace = os.path.join(args.out, f"{args.mode}.pt.trace.json")
        prof.export_chrome_trace(trace)
        sort = "cuda_time_total" if cuda else "cpu_time_total"
        with open(os.path.join(args.out, f"{args.mode}.table.txt"), "w") as f:
            # The string itself, which `kinetoscope summary` prints (print() would add a line break).
            f.write(prof.key_averages().table(sort_by=sort, row_limit=-1))
    timing = {"mode": args.mode, "device": str(dev), "torch": torch.__version__, "steps": len(times),
              "step_s": times, "median_s": sorted(times)[len(times) // 2]}
    print("timing: " + json.dumps(timing), flush=True)


if __name__ == "__main__":
    if "--mode" in sys.argv and sys.argv[sys.argv.index("--mode") + 1] == "kinetoscope":
        import kinetoscope as ks  # noqa: F401  (the swapped-in profiler)
    else:
        ks = None
    main()
