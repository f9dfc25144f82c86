"""Truncated BPTT done right: the state is detached after each step.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
cell, head = nn.GRUCell(4, 8), nn.Linear(8, 1)
opt = torch.optim.Adam([*cell.parameters(), *head.parameters()], lr=1e-2)
h = torch.zeros(2, 8)
for step in range(3):
    h = cell(torch.randn(2, 4), h)
    loss = head(h).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    h = h.detach()  # twin: h = h.detach().clone()
