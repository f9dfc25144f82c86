"""nn.ReLU(inplace=True) after a Linear: nothing saved the Linear's output.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(inplace=True), nn.Linear(16, 1))  # twin: model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
loss = model(torch.randn(32, 8)).pow(2).mean()
loss.backward()
