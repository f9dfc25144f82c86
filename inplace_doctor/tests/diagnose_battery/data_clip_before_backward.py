"""WGAN weight clipping through .data, placed between the critic's forward and its backward:
the second Linear saved its weight (for the gradient of its input), and .data hides the write.

Kind: counter-blind
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
real, fake = torch.randn(32, 2) + 1.0, torch.randn(32, 2)
loss = critic(fake).mean() - critic(real).mean()
for p in critic.parameters():
    p.data.clamp_(-0.1, 0.1)  # WRITE twin: p.data = p.data.clamp(-0.1, 0.1)
loss.backward()
