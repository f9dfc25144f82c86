"""A training loop inside one torch.autocast region: the optimizer step writes the weights in
place, and the next forward reuses autocast's cached low-precision copy of the old weights.

Kind: autocast
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
x, y = torch.randn(32, 8), torch.randn(32, 1)
with torch.autocast("cpu", dtype=torch.bfloat16):  # twin: with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=False):
    for step in range(2):
        opt.zero_grad()
        loss = (model(x).float() - y).pow(2).mean()
        loss.backward()
        opt.step()  # WRITE
