"""A pre-norm residual written h += f(ln(h)): LayerNorm saved h.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
embed, ln, mix, head = nn.Linear(8, 16), nn.LayerNorm(16), nn.Linear(16, 16), nn.Linear(16, 1)
h = embed(torch.randn(4, 6, 8))
h += mix(ln(h))  # WRITE twin: h = h + mix(ln(h))
loss = head(h).pow(2).mean()
loss.backward()
