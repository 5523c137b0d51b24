# An ordinary Adam training loop that knows nothing about Kinetoscope, for the memory categories
# of a recorded session (tests/scripts/test_live_torch_memory.sh). It writes what the model and
# optimizer hold to ARGV[1] (JSON) so the test can compare the categories with the real sizes.
import json
import sys

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = torch.nn.CrossEntropyLoss()
steps = 3
for _ in range(steps):
    x = torch.randn(32, 64)
    y = torch.randint(0, 10, (32,))
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
params = list(model.parameters())
state = [v for s in optimizer.state.values() for v in s.values() if torch.is_tensor(v)]
with open(sys.argv[1], "w") as f:
    json.dump({"param_bytes": sum(p.numel() * p.element_size() for p in params),
               "state_bytes": sum(v.storage().nbytes() for v in state),
               "input_bytes": x.numel() * x.element_size() + y.numel() * y.element_size()}, f)
