"""A tensor hook that clips the gradient flowing through an activation in place: it writes a
gradient, which no backward node saved.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc1, fc2 = nn.Linear(8, 16), nn.Linear(16, 1)
h = torch.tanh(fc1(torch.randn(32, 8)))
h.register_hook(lambda grad: grad.clamp_(-0.001, 0.001))  # twin: h.register_hook(lambda grad: grad.clamp(-0.001, 0.001))
loss = fc2(h).pow(2).mean()
loss.backward()
