"""A module's backward pre-hook that halves the gradient of its output in place: the residual
add handed the same tensor to the skip branch, whose gradient is halved as well.

Kind: grad-hook
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
block = nn.Linear(8, 8)
skip = nn.Linear(8, 8)


def damp(module, grad_output):
    grad_output[0].mul_(0.5)  # WRITE twin: return (grad_output[0] * 0.5,)


block.register_full_backward_pre_hook(damp)
x = torch.randn(4, 8, requires_grad=True)
y = skip(x) * 2 + block(x)
(y * 3).sum().backward()
