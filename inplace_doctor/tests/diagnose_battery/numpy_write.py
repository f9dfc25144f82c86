"""Columns of a tanh output zeroed through a NumPy view: no op, no version bump.

Kind: unseen
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc1, fc2 = nn.Linear(8, 16), nn.Linear(16, 1)
h = torch.tanh(fc1(torch.randn(32, 8)))
h.detach().numpy()[:, :4] = 0.0  # WRITE twin: h = torch.cat([torch.zeros_like(h[:, :4]), h[:, 4:]], dim=1)
loss = fc2(h).pow(2).mean()
loss.backward()
