"""A complex-valued layer (a phase rotation, as in complex-valued networks and signal models)
whose exponential is scaled in place: exp saves its result, a complex tensor.

Kind: raises
"""
import torch

torch.manual_seed(0)
theta = torch.randn(8, dtype=torch.cfloat, requires_grad=True)
rotation = theta.exp()
rotation *= 0.5  # WRITE twin: rotation = rotation * 0.5
loss = rotation.abs().pow(2).sum()
loss.backward()
