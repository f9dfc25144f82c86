"""Activations clipped through .data after tanh saved them: the version counter never sees it.

Kind: counter-blind
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc1, fc2 = nn.Linear(8, 16), nn.Linear(16, 1)
h = torch.tanh(fc1(torch.randn(32, 8)))
h.data.clamp_(-0.5, 0.5)  # WRITE twin: h = h.clamp(-0.5, 0.5)
loss = fc2(h).pow(2).mean()
loss.backward()
