"""A custom Function that keeps its input as ctx.x instead of save_for_backward.

Kind: ctx
"""
import torch
import torch.nn as nn


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        return 3 * ctx.x ** 2 * grad


torch.manual_seed(0)
fc = nn.Linear(8, 8)
h = fc(torch.randn(16, 8))
y = Cube.apply(h)
h.add_(1.0)  # WRITE twin: h = h + 1.0
loss = y.mean() + h.mean()
loss.backward()
