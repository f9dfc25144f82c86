"""The same wrong GAN order with fused=True Adam: the fused step writes the weights without
bumping their version counters, so the second backward silently uses the new weights.

Kind: counter-blind
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-2, fused=True)
bce = nn.BCEWithLogitsLoss()
real, z = torch.randn(32, 2), torch.randn(32, 4)
ones, zeros = torch.ones(32, 1), torch.zeros(32, 1)

fake = G(z)
d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
g_loss = bce(D(fake), ones)
d_loss.backward()
opt_d.step()  # WRITE twin: pass
g_loss.backward()
