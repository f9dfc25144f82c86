"""A causal mask put on the attention scores in place, before the softmax.

Kind: harmless
"""
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
qkv = nn.Linear(16, 48)
q, k, v = qkv(torch.randn(2, 5, 16)).chunk(3, dim=-1)
scores = q @ k.transpose(-2, -1) / math.sqrt(16)
causal = torch.ones(5, 5, dtype=torch.bool).triu(1)
scores.masked_fill_(causal, float("-inf"))  # twin: scores = scores.masked_fill(causal, float("-inf"))
loss = (scores.softmax(dim=-1) @ v).pow(2).mean()
loss.backward()
