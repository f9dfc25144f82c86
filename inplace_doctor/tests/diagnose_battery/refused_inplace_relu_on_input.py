"""A saliency map: the input requires grad, and the network starts with nn.ReLU(inplace=True),
which writes the input leaf itself: PyTorch refuses, at the forward.

Kind: refused
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.ReLU(inplace=True), nn.Linear(8, 1))  # BUILT twin: net = nn.Sequential(nn.ReLU(), nn.Linear(8, 1))
image = torch.randn(2, 8, requires_grad=True)
score = net(image).sum()  # WRITE
score.backward()
