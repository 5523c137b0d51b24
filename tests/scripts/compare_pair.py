#!/usr/bin/python3
"""Profiles a small MLP training run with real torch, in one of a few variants, for the compare tests.

    compare_pair.py OUT.json VARIANT

Three ProfilerSteps (schedule: one wait, one warmup, three active) of a 2-layer MLP with SGD on the
CPU, written by torch's own export_chrome_trace. Variants, each one known change from "base":
  base        Linear(16,32) -> ReLU -> Linear(32,4), batch 8, a "prep" range that sleeps 2 ms
  extra       one more Linear(32,32) -> ReLU before the last layer
  batch       batch 64 instead of 8
  noact       the ReLU removed
  slow        the "prep" range sleeps 30 ms instead of 2 ms
"""

import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule


def main():
    out, variant = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    layers = [torch.nn.Linear(16, 32)]
    if variant != "noact":
        layers.append(torch.nn.ReLU())
    if variant == "extra":
        layers += [torch.nn.Linear(32, 32), torch.nn.ReLU()]
    layers.append(torch.nn.Linear(32, 4))
    model = torch.nn.Sequential(*layers)
    batch = 64 if variant == "batch" else 8
    pause = 0.030 if variant == "slow" else 0.002
    x = torch.randn(batch, 16)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3, repeat=1)) as prof:
        for _ in range(5):
            with record_function("prep"):
                time.sleep(pause)
            loss = model(x).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            prof.step()
    prof.export_chrome_trace(out)


if __name__ == "__main__":
    main()
