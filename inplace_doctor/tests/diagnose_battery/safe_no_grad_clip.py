"""WGAN-style weight clipping in place under no_grad, before each forward.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(critic.parameters(), lr=0.5)
x = torch.randn(32, 2)
for step in range(2):
    with torch.no_grad():
        for p in critic.parameters():
            p.clamp_(-0.1, 0.1)  # twin: p.copy_(p.clamp(-0.1, 0.1))
    opt.zero_grad()
    loss = -critic(x).mean()
    loss.backward()
    opt.step()
