"""A custom Function that scales its input in place (mark_dirty), applied to a sigmoid output.

Kind: raises
"""
import torch
import torch.nn as nn


class ScaleInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, s):
        ctx.s = s
        ctx.mark_dirty(x)
        return x.mul_(s)  # WRITE

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.s, None


torch.manual_seed(0)
fc, head = nn.Linear(8, 16), nn.Linear(16, 1)
h = torch.sigmoid(fc(torch.randn(32, 8)))
h = ScaleInPlace.apply(h, 0.5)  # twin: h = h * 0.5
loss = head(h).pow(2).mean()
loss.backward()
