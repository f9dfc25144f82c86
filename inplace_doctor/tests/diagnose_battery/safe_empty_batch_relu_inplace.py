"""An empty batch through a Linear and an in-place ReLU (safe: the Linear saves its input, not its
output), and a non-empty one after it.

Kind: harmless
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
fc1, fc2 = nn.Linear(4, 8), nn.Linear(8, 1)
for batch in (torch.randn(0, 4), torch.randn(5, 4)):
    h = F.relu_(fc1(batch))  # twin: h = F.relu(fc1(batch))
    loss = fc2(h).pow(2).sum()
    loss.backward()
