# The parent trains three steps and forks a child that trains two with its own optimizer: both
# processes stream, the child under its own pid.
import os
import time

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


train(3)
pid = os.fork()
if pid == 0:
    # No backward in the child: torch 2.x refuses autograd in a child forked after the parent used
    # it ("Unable to handle autograd's threading in combination with fork-based multiprocessing").
    train(2, backward=False)
    time.sleep(0.2)  # os._exit skips atexit: let the sender thread pass on the last steps first
    os._exit(0)
os.waitpid(pid, 0)
print("child", pid, "done")
