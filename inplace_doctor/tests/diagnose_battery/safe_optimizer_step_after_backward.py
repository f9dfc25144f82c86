"""A plain training loop: the (foreach) optimizer step comes after each backward.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2, foreach=True)  # twin: opt = torch.optim.Adam(model.parameters(), lr=1e-2, foreach=False)
x, y = torch.randn(32, 8), torch.randn(32, 1)
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
