"""The same loop with one torch.autocast region per forward: the cache is emptied when each region
ends, so the step's new weights are cast afresh.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
x, y = torch.randn(32, 8), torch.randn(32, 1)
for step in range(2):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):  # twin: with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=False):
        loss = (model(x).float() - y).pow(2).mean()
    loss.backward()
    opt.step()
