"""Truncated backpropagation through time with the state cut by h.detach_() before backward:
the RNN cell saved h (its recurrent input, and the tanh that made it saved its result).

Kind: detached
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
cell, head = nn.RNNCell(4, 8), nn.Linear(8, 1)
opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)
h = torch.zeros(2, 8)
for chunk in torch.randn(2, 3, 2, 4):  # two chunks of three time steps
    loss = torch.zeros(())
    for x in chunk:
        h = cell(x, h)
        loss = loss + head(h).pow(2).mean()
    h.detach_()  # WRITE twin: h = h.detach()
    opt.zero_grad()
    loss.backward()
    opt.step()
