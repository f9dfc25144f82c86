"""A slice taken under torch.no_grad() (to log it) of a tensor that requires grad, later written in
place with grad mode on: PyTorch refuses the write, the view being ambiguous.

Kind: refused
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(8, 16)
h = encoder(torch.randn(4, 8))
with torch.no_grad():
    head = h[:, :4]
    print("head mean", float(head.mean()))
head.mul_(2.0)  # WRITE twin: head = head * 2.0
loss = h.pow(2).mean()
loss.backward()
