"""A custom Function whose backward scales its incoming gradient in place: a fresh tensor that no
node saved.

Kind: harmless
"""
import torch
import torch.nn as nn


class ScaleGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone()
        grad.mul_(0.5)  # twin: grad = grad * 0.5
        return grad


torch.manual_seed(0)
fc = nn.Linear(4, 4)
h = torch.tanh(fc(torch.randn(8, 4)))
ScaleGrad.apply(h).pow(2).sum().backward()
