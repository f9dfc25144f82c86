"""Two losses of one forward, the optimizer step between their backward passes.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
out = model(torch.randn(32, 8))
loss_a, loss_b = out.pow(2).mean(), (out - 1).abs().mean()
loss_a.backward(retain_graph=True)
opt.step()  # WRITE twin: pass
loss_b.backward()
