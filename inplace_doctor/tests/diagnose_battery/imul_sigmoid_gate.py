"""A gate masked in place, gate *= mask: sigmoid saved the gate.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
gate_fc, value_fc, out_fc = nn.Linear(8, 16), nn.Linear(8, 16), nn.Linear(16, 1)
x = torch.randn(32, 8)
mask = (torch.rand(32, 16) > 0.2).float()
gate = torch.sigmoid(gate_fc(x))
gate *= mask  # WRITE twin: gate = gate * mask
loss = out_fc(gate * value_fc(x)).pow(2).mean()
loss.backward()
