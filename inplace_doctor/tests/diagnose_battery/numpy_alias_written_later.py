"""A NumPy array of a saved tanh output, made at one line and scaled in place two lines later
(an image logged during training): no op, no version bump, wrong gradients.

Kind: unseen
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc1, fc2 = nn.Linear(8, 16), nn.Linear(16, 1)
out = torch.tanh(fc1(torch.randn(32, 8)))
img = out.detach().numpy()
scale = 255.0
img *= scale  # WRITE twin: img = img * scale
loss = fc2(out).pow(2).mean()
loss.backward()
