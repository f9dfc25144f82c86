"""v scaled in place after q @ k saved q and k: other bytes of the same qkv output, but one
version counter for all three views.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
qkv = nn.Linear(16, 48)
out = qkv(torch.randn(2, 5, 16))
q, k, v = out[..., :16], out[..., 16:32], out[..., 32:]
att = (q @ k.transpose(-2, -1)).softmax(dim=-1)
v.mul_(0.5)  # WRITE twin: v = v * 0.5
loss = (att @ v).pow(2).mean()
loss.backward()
