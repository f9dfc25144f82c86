"""A custom Function whose backward scales, in place, a tensor that an earlier op saved: the later
node (in backward order) then reads the overwritten values.

Kind: raises
"""
import torch
import torch.nn as nn


class ScaleGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(scale)
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        (scale,) = ctx.saved_tensors
        scale.mul_(0.5)  # WRITE twin: scale = scale * 0.5
        return grad * scale, None


torch.manual_seed(0)
fc = nn.Linear(4, 4)
scale = torch.sigmoid(torch.randn(8, 4, requires_grad=True))
h = fc(torch.randn(8, 4)) * scale
out = ScaleGrad.apply(h, scale)
out.pow(2).sum().backward()
