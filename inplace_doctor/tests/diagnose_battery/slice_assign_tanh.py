"""A column of a tanh output zeroed by slice assignment: tanh saved that output.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc1, fc2 = nn.Linear(8, 16), nn.Linear(16, 1)
h = torch.tanh(fc1(torch.randn(32, 8)))
h[:, 0] = 0.0  # WRITE twin: h = torch.cat([torch.zeros_like(h[:, :1]), h[:, 1:]], dim=1)
loss = fc2(h).pow(2).mean()
loss.backward()
