# Two optimizers on the fake torch 2: the global hooks must count one step per iteration.
import sys

import torch
from torch.optim import SGD

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
a, b = SGD([1]), SGD([2])
for i in range(steps):
    a.step()
    b.step()
print("done", a.steps, b.steps)
