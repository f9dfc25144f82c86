"""BatchNorm in eval mode normalises with its running variance, which its backward reads; the
running variance is rescaled in place between the forward and the backward.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 1)).eval()
x = torch.randn(16, 6)
loss = net(x).pow(2).mean()
net[1].running_var.mul_(2.0)  # WRITE twin: net[1].running_var = net[1].running_var * 2.0
loss.backward()
