#!/usr/bin/env python3
# Records the small traces the flame-graph golden tests read (tests/data/flame_*.json.gz): a tiny
# model profiled on the CPU with with_stack, with_modules and profile_memory, two steps. Run once
# per torch (1.13 and 2.x); the output is kept in the repository so the tests do not need torch.
#   python3 flame_model.py OUT.json
import gzip
import os
import shutil
import sys

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 32)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Block(), Block())
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        return self.head(self.blocks(x))


def step(model, opt, x):
    with torch.profiler.record_function("train_step"):
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        opt.step()


def main():
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(16, 32)
    out = sys.argv[1]
    tmp = out + ".raw.json"
    # One warm-up step, then two recorded ones (ProfilerStep#1 and #2), written when they end.
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                schedule=torch.profiler.schedule(wait=0, warmup=1, active=2, repeat=1),
                                on_trace_ready=lambda p: p.export_chrome_trace(tmp),
                                with_stack=True, with_modules=True, profile_memory=True,
                                record_shapes=True) as prof:
        for _ in range(4):
            step(model, opt, x)
            prof.step()
    with open(tmp, "rb") as src, gzip.open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.remove(tmp)


if __name__ == "__main__":
    main()
