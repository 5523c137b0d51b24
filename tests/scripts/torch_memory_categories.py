# A small Adam training loop under kinetoscope.profile(profile_memory=True): the memory timeline's
# PARAMETER, GRADIENT, OPTIMIZER_STATE and INPUT come from the tensors themselves (rule R1). torch
# 1.13 has no torch.profiler._memory_profiler to compare with (it came with torch 2.1), so the
# expected bytes are computed from the model and the optimizer here.
import json
import sys

import torch

import kinetoscope

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = torch.nn.CrossEntropyLoss()
steps = 3
with kinetoscope.profile(activities=[kinetoscope.ProfilerActivity.CPU], profile_memory=True) as prof:
    for _ in range(steps):
        x = torch.randn(32, 64)
        y = torch.randint(0, 10, (32,))
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        prof.step()
prof.export_memory_timeline(sys.argv[1] + ".json", device="cpu")
params = list(model.parameters())
state = [v for s in optimizer.state.values() for v in s.values() if torch.is_tensor(v)]
json.dump({"param_bytes": sum(p.numel() * p.element_size() for p in params),
           "state_bytes": sum(v.storage().nbytes() for v in state),
           "input_bytes": x.numel() * x.element_size() + y.numel() * y.element_size()},
          open(sys.argv[1] + ".expected.json", "w"))
