"""Two heads written into a fresh torch.zeros buffer: nothing saved the buffer before.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
head_a, head_b, out = nn.Linear(8, 4), nn.Linear(8, 4), nn.Linear(8, 1)
x = torch.randn(32, 8)
both = torch.zeros(32, 8)  # twin: pass
both[:, :4] = head_a(x)  # twin: pass
both[:, 4:] += head_b(x)  # twin: both = torch.cat([head_a(x), head_b(x)], dim=1)
loss = out(both).pow(2).mean()
loss.backward()
