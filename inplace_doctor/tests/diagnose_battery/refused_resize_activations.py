"""Activations resized in place to flatten them for a head: PyTorch refuses to resize a tensor
that requires grad.

Kind: refused
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
conv, head = nn.Conv1d(2, 3, 3), nn.Linear(18, 1)
h = conv(torch.randn(4, 2, 8))
h.resize_(4, 18)  # WRITE twin: h = h.reshape(4, 18)
loss = head(h).pow(2).mean()
loss.backward()
