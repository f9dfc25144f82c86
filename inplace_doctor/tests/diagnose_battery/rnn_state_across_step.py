"""Truncated BPTT gone wrong: the RNN state is carried into the next step without detaching,
and the optimizer step between two backward passes rewrote the weights its graph saved.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
cell, head = nn.RNNCell(4, 8), nn.Linear(8, 1)
opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
h = torch.zeros(2, 8)
for step in range(3):
    h = cell(torch.randn(2, 4), h)
    loss = head(h).pow(2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()  # WRITE twin: h = h.detach()
