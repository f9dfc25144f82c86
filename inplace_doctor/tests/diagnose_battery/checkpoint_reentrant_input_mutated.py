"""The same with use_reentrant=True (the old default): the checkpoint saved its input.

Kind: raises
"""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
embed, head = nn.Linear(8, 16), nn.Linear(16, 1)
block = nn.Sequential(nn.Linear(16, 16), nn.GELU(), nn.Linear(16, 16))
h = embed(torch.randn(32, 8))
y = checkpoint(block, h, use_reentrant=True)
h.mul_(0.5)  # WRITE twin: h = h * 0.5
loss = head(y + h).pow(2).mean()
loss.backward()
