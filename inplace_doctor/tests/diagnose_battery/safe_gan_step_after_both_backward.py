"""The GAN loop in a safe order: both backward passes (the first retaining the shared graph),
then both optimizer steps.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.SGD(G.parameters(), lr=1e-2)
opt_d = torch.optim.SGD(D.parameters(), lr=1e-2)
bce = nn.BCEWithLogitsLoss()

for step in range(3):
    fake = G(torch.randn(32, 4))
    d_fake = D(fake)
    d_loss = bce(D(torch.randn(32, 2)), torch.ones(32, 1)) + bce(d_fake, torch.zeros(32, 1))
    g_loss = bce(d_fake, torch.ones(32, 1))
    opt_d.zero_grad()
    opt_g.zero_grad()
    d_loss.backward(retain_graph=True, inputs=list(D.parameters()))
    g_loss.backward(inputs=list(G.parameters()))
    opt_d.step()  # twin: opt_d.step()
    opt_g.step()
