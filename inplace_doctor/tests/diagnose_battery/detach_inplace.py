"""An encoder output detached in place after the head used it: the head saved it.

Kind: detached
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder, head = nn.Linear(8, 16), nn.Linear(16, 1)
h = encoder(torch.randn(32, 8))
prediction = head(h)
h.detach_()  # WRITE twin: h = h.detach()
loss = prediction.pow(2).mean() + h.mean()
loss.backward()
