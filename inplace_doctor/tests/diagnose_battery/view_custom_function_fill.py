"""A custom Function returns a view of its input; its output is filled in place under no_grad,
and PyTorch refuses the view at its next use.

Kind: view
"""
import torch


class Head(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x[:2]

    @staticmethod
    def backward(ctx, grad):
        return torch.cat([grad, torch.zeros_like(grad)])


torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
out = Head.apply(x * 1)
with torch.no_grad():
    out.fill_(1.0)  # WRITE twin: out = torch.full_like(out, 1.0)
loss = (out * 2).sum()
loss.backward()
