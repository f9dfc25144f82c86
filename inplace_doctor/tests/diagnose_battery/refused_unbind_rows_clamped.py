"""Each row of a batch of scores, from unbind, clamped in place in a loop: unbind's outputs are
views PyTorch refuses to write in place.

Kind: refused
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
scorer = nn.Linear(6, 4)
scores = scorer(torch.randn(3, 6))
for row in scores.unbind(0):
    row.clamp_(min=-1.0, max=1.0)  # WRITE twin: row = row.clamp(min=-1.0, max=1.0)
loss = scores.pow(2).sum()
loss.backward()
