"""The GAN order people write most: D's forward once, d_loss.backward(retain_graph=True), the
discriminator's step, then g_loss.backward() through the same D forward, inside a train_step
function called in a loop. Found by default (the first backward is clean).

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()


def train_step():
    real, z = torch.randn(32, 2), torch.randn(32, 4)
    fake = G(z)
    d_fake = D(fake)
    d_loss = bce(D(real), torch.ones(32, 1)) + bce(d_fake, torch.zeros(32, 1))
    g_loss = bce(d_fake, torch.ones(32, 1))
    opt_d.zero_grad()
    d_loss.backward(retain_graph=True)
    opt_d.step()  # WRITE twin: pass
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()


for step in range(3):
    train_step()
