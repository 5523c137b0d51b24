# Ten forked children that end with os._exit right after their last step, one of them inside an
# open record_function range: os._exit runs no atexit handler, so what the children recorded in
# their last moments reaches the viewer only if the bootstrap flushes on os._exit.
import os
import sys

import torch


def train(n, backward=True):
    model = torch.nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(n):
        opt.zero_grad()
        loss = model(torch.randn(4, 8)).sum()
        if backward:
            loss.backward()
        opt.step()


children = int(sys.argv[1]) if len(sys.argv) > 1 else 10
train(1)
pids = []
for i in range(children):
    pid = os.fork()
    if pid == 0:
        # No backward in a child: torch 2.x refuses autograd after fork.
        train(3, backward=False)
        if i == 0:
            with torch.autograd.profiler.record_function("child_open_range"):
                torch.relu(torch.randn(4))
                os._exit(0)
        os._exit(0)
    pids.append(pid)
for pid in pids:
    os.waitpid(pid, 0)
print("children done", len(pids))
