# A GAN-style loop: two optimizers stepped once per iteration, plus the script's own
# torch.profiler.profile stepping as well. Still exactly one step per iteration.
import sys

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 6
gen = torch.nn.Linear(8, 8)
disc = torch.nn.Linear(8, 1)
opt_g = torch.optim.Adam(gen.parameters())
opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
with torch.profiler.profile() as prof:
    for step in range(steps):
        opt_d.zero_grad()
        disc(gen(torch.randn(4, 8)).detach()).mean().backward()
        opt_d.step()
        opt_g.zero_grad()
        (-disc(gen(torch.randn(4, 8))).mean()).backward()
        opt_g.step()
        prof.step()
print("done")
