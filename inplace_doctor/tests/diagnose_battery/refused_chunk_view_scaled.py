"""Queries scaled in place right after chunking a fused qkv projection: a chunk is one of several
views an op returned, and PyTorch refuses to write it in place.

Kind: refused
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
qkv = nn.Linear(8, 24)
x = torch.randn(2, 5, 8)
q, k, v = qkv(x).chunk(3, dim=-1)
q *= 8 ** -0.5  # WRITE twin: q = q * 8 ** -0.5
attention = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
loss = (attention @ v).pow(2).mean()
loss.backward()
