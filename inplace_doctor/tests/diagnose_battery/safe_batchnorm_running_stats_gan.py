"""A GAN's discriminator with BatchNorm in training mode, run on real then fake images before one
backward: the second forward updates the running statistics in place, which the first forward's
node saved, but training-mode backward never reads them.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
D = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
G = nn.Sequential(nn.Linear(3, 6), nn.Tanh())
real, noise = torch.randn(16, 6), torch.randn(16, 3)
d_real = D(real)
d_fake = D(G(noise).detach())  # twin: d_fake = D[3](D[2](nn.functional.batch_norm(D[0](G(noise).detach()), None, None, D[1].weight, D[1].bias, training=True)))
loss = nn.functional.softplus(-d_real).mean() + nn.functional.softplus(d_fake).mean()
loss.backward()
