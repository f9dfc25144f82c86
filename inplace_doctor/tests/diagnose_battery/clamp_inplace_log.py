"""Probabilities clamped in place for safety, after log had used (and saved) them.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc = nn.Linear(8, 1)
x, y = torch.randn(64, 8), torch.randint(0, 2, (64, 1)).float()
p = torch.sigmoid(fc(x))
log_p = torch.log(p)
p.clamp_(1e-4, 1 - 1e-4)  # WRITE twin: p = p.clamp(1e-4, 1 - 1e-4)
loss = -(y * log_p + (1 - y) * torch.log1p(-p)).mean()
loss.backward()
