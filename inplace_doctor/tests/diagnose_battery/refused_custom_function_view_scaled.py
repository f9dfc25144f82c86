"""A custom Function that returns a view of its input (a cheap "identity with a custom gradient"),
its output then scaled in place with grad mode on: PyTorch refuses to write a view a custom
Function returned.

Kind: refused
"""
import torch
import torch.nn as nn


class ScaleGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return 0.5 * grad


torch.manual_seed(0)
layer = nn.Linear(8, 8)
h = ScaleGrad.apply(layer(torch.randn(4, 8)))
h.mul_(2.0)  # WRITE twin: h = h * 2.0
loss = h.pow(2).mean()
loss.backward()
