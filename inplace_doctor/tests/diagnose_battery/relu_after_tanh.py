"""relu_ on the output of tanh, which tanh saved for its backward.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc1, fc2 = nn.Linear(8, 16), nn.Linear(16, 1)
x = torch.randn(32, 8)
h = torch.tanh(fc1(x))
h.relu_()  # WRITE twin: h = h.relu()
loss = fc2(h).pow(2).mean()
loss.backward()
