"""An in-place normalisation inside a helper, applied to a tanh output: the write is the helper's
line, called from the training code.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc, head = nn.Linear(8, 16), nn.Linear(16, 1)


def normalize(h):
    return h.div_(h.norm(dim=1, keepdim=True))  # WRITE twin: return h / h.norm(dim=1, keepdim=True)


h = normalize(torch.tanh(fc(torch.randn(4, 8))))
loss = head(h).pow(2).mean()
loss.backward()
