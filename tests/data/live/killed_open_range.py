# A target killed with SIGKILL inside a record_function range: four training steps, then a range
# with one operator in it that never ends. The sleep lets the sender's periodic drain (about every
# 10 ms) take the range's start and the operator out of the process; after SIGKILL nothing else can.
import os
import signal
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 4
model = torch.nn.Linear(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(steps):
    opt.zero_grad()
    model(torch.randn(4, 8)).sum().backward()
    opt.step()
    print("step", step, flush=True)
with torch.autograd.profiler.record_function("killed_open_range"):
    torch.relu(torch.randn(4))
    time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGKILL)
print("not reached")
