# A small, ordinary PyTorch training loop: nothing in it knows about Kinetoscope. The live tests
# launch it unmodified and expect exactly STEPS steps.
#
# usage: train_mlp.py [STEPS] [SLEEP_MS] [adam|sgd]
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 12
sleep_ms = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
which = sys.argv[3] if len(sys.argv) > 3 else "adam"

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
if which == "sgd":
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
else:
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = torch.nn.CrossEntropyLoss()

started = None
for step in range(steps):
    if step == 2:
        started = time.perf_counter()  # steps/s over the steady part of the run
    x = torch.randn(32, 64)
    y = torch.randint(0, 10, (32,))
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    if sleep_ms:
        time.sleep(sleep_ms / 1000.0)
    print("step %d loss %.4f" % (step, loss.item()), flush=True)
if started is not None and steps > 2:
    print("steps/s %.2f" % ((steps - 2) / (time.perf_counter() - started)))
print("done")
