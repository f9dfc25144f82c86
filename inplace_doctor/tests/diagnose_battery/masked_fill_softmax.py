"""Padding zeroed after the softmax with masked_fill_: softmax saved its output.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
score = nn.Linear(16, 1)
tokens = torch.randn(4, 7, 16)
pad = torch.zeros(4, 7, dtype=torch.bool)
pad[:, 5:] = True
weights = score(tokens).squeeze(-1).softmax(dim=-1)
weights.masked_fill_(pad, 0.0)  # WRITE twin: weights = weights.masked_fill(pad, 0.0)
pooled = (weights.unsqueeze(-1) * tokens).sum(dim=1)
loss = pooled.pow(2).mean()
loss.backward()
