"""An empty batch (the last, filtered one): sigmoid's output has no elements, but scaling it in
place still bumps its version, and backward raises.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc = nn.Linear(4, 2)
batch = torch.randn(0, 4)
h = torch.sigmoid(fc(batch))
h.mul_(2.0)  # WRITE twin: h = h * 2.0
loss = h.sum() + 0.0 * fc.weight.sum()
loss.backward()
