"""A product written into a preallocated buffer with out= while an input requires grad: PyTorch
refuses out= arguments that would need a gradient.

Kind: refused
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
gate, value = nn.Linear(8, 8), nn.Linear(8, 8)
x = torch.randn(4, 8)
buffer = torch.empty(4, 8)
torch.mul(torch.sigmoid(gate(x)), value(x), out=buffer)  # WRITE twin: buffer = torch.mul(torch.sigmoid(gate(x)), value(x))
loss = buffer.pow(2).mean()
loss.backward()
