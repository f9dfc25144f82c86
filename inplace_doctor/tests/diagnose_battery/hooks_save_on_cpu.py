"""Activations offloaded with save_on_cpu (on CPU: the tensor itself), then written in place:
with saved-tensor hooks PyTorch skips its version check.

Kind: hooks
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc1, fc2 = nn.Linear(8, 16), nn.Linear(16, 1)
h = fc1(torch.randn(32, 8))
with torch.autograd.graph.save_on_cpu():
    s = torch.sin(h)
h.mul_(2.0)  # WRITE twin: h = h * 2.0
loss = fc2(s).pow(2).mean() + h.mean()
loss.backward()
