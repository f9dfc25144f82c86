"""Gradient stopped through part of the features by detaching a slice in place: a view cannot be
detached in place, and PyTorch refuses at the write.

Kind: refused
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder, head = nn.Linear(8, 16), nn.Linear(16, 1)
features = encoder(torch.randn(4, 8))
features[:, :8].detach_()  # WRITE twin: features = torch.cat([features[:, :8].detach(), features[:, 8:]], dim=1)
loss = head(features).pow(2).mean()
loss.backward()
