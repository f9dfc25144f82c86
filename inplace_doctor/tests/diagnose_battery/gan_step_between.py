"""A GAN step in the wrong order: the discriminator's (foreach) Adam step runs between the
generator loss's forward and its backward, which saved the discriminator's weights.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, foreach=True)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, foreach=True)
bce = nn.BCEWithLogitsLoss()
real, z = torch.randn(32, 2), torch.randn(32, 4)
ones, zeros = torch.ones(32, 1), torch.zeros(32, 1)

fake = G(z)
d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
g_loss = bce(D(fake), ones)
opt_d.zero_grad()
d_loss.backward()
opt_d.step()  # WRITE twin: pass
opt_g.zero_grad()
g_loss.backward()
opt_g.step()
