"""expm1 by hand: e = exp(z); e -= 1. exp saved its output.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc = nn.Linear(8, 8)
e = torch.exp(fc(torch.randn(16, 8)))
e -= 1.0  # WRITE twin: e = e - 1.0
loss = e.pow(2).mean()
loss.backward()
