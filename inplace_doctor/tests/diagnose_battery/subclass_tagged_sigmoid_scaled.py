"""A torch.Tensor subclass carrying metadata (as units or named-tensor libraries do), whose
sigmoid output is scaled in place.

Kind: raises
"""
import torch


class Tagged(torch.Tensor):
    pass


torch.manual_seed(0)
w = torch.randn(8, requires_grad=True)
h = (w * 2).as_subclass(Tagged).sigmoid()
h.mul_(2)  # WRITE twin: h = h.mul(2)
loss = h.sum()
loss.backward()
