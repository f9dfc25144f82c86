"""Chunks of a projection (one of several views an op returned), then the projection scaled in
place: PyTorch refuses the chunk at its next use.

Kind: view
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
qk = nn.Linear(8, 16)
proj = qk(torch.randn(4, 8))
q, k = proj.split(8, dim=1)
proj.mul_(8 ** -0.5)  # WRITE twin: proj = proj * 8 ** -0.5
loss = (q * k).sum()
loss.backward()
