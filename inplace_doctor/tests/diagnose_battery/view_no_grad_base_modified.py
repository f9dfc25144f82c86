"""A view taken under no_grad, then its base scaled in place with grad mode on: PyTorch refuses
the view at its next use.

Kind: view
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc = nn.Linear(4, 6)
y = fc(torch.randn(3, 4))
with torch.no_grad():
    first = y[:, :3]
y.mul_(0.5)  # WRITE twin: y = y * 0.5
loss = (first * y[:, 3:]).sum()
loss.backward()
