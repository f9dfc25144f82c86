"""Evaluation code reshapes an activation under torch.inference_mode(), and training then writes
that view in place: PyTorch refuses a view made in inference mode and written outside it (reshape,
a composite op, makes a view there too).

Kind: refused
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(8, 4)
h = model(torch.randn(16, 8))
with torch.inference_mode():
    grid = h.reshape(4, 4, 4)
grid.mul_(0.5)  # WRITE twin: grid = grid.clone().mul_(0.5)
loss = h.pow(2).mean()
loss.backward()
