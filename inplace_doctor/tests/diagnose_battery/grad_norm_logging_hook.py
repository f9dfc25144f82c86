"""Tensor hooks that only read the gradient (its norm, for logging) and one that returns a clipped
copy: PyTorch uses the returned gradient, and no other branch sees a change.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
norms = []
for p in net.parameters():
    p.register_hook(lambda g: norms.append(g.norm().item()))
x = torch.randn(4, 8)
h = net[1](net[0](x))
h.register_hook(lambda g: g.clamp(-0.1, 0.1))  # twin: h.register_hook(lambda g: g.clamp(-0.1, 0.1) * 1)
loss = net[2](h + x.sum(1, keepdim=True)).pow(2).mean()
loss.backward()
