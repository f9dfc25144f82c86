"""Small probabilities zeroed by boolean-mask assignment: sigmoid saved them.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc = nn.Linear(8, 8)
p = torch.sigmoid(fc(torch.randn(32, 8)))
p[p < 0.2] = 0.0  # WRITE twin: p = torch.where(p < 0.2, torch.zeros_like(p), p)
loss = p.sum(dim=1).log().mean()
loss.backward()
