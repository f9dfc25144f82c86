"""The same with use_reentrant=True.

Kind: harmless
"""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
fc, head = nn.Linear(8, 16), nn.Linear(16, 1)
x = torch.randn(32, 8, requires_grad=True)
y = checkpoint(lambda t: torch.tanh(fc(t)), x, use_reentrant=True)
y.relu_()  # twin: y = y.relu()
loss = head(y).pow(2).mean()
loss.backward()
