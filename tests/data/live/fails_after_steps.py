# An ordinary training loop that crashes after three steps (the live tests expect the three steps,
# the script's own traceback, and its exit code).
import torch

model = torch.nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    optimizer.zero_grad()
    model(torch.randn(4, 8)).sum().backward()
    optimizer.step()
    if step == 2:
        raise RuntimeError("the loss went NaN")
