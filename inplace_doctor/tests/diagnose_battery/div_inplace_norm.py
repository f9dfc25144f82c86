"""Features normalised in place, h.div_(h.norm(...)): norm saved h.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
proj, head = nn.Linear(8, 16), nn.Linear(16, 1)
h = proj(torch.randn(32, 8))
h.div_(h.norm(dim=-1, keepdim=True))  # WRITE twin: h = h / h.norm(dim=-1, keepdim=True)
loss = head(h).pow(2).mean()
loss.backward()
