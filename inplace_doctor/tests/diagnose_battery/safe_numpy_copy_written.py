"""The same logging with a copy of the array: the saved values are untouched.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc1, fc2 = nn.Linear(8, 16), nn.Linear(16, 1)
out = torch.tanh(fc1(torch.randn(32, 8)))
img = out.detach().cpu().numpy().copy()
img *= 255.0  # twin: img = img * 255.0
loss = fc2(out).pow(2).mean()
loss.backward()
