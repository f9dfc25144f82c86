"""exp_ on fresh matmul scores (a softmax by hand): matmul does not save its output.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
proj = nn.Linear(8, 8)
q = proj(torch.randn(6, 8))
scores = q @ q.transpose(0, 1)
weights = scores.exp_()  # twin: weights = scores.exp()
loss = (weights / weights.sum(dim=-1, keepdim=True)).diagonal().log().mean()
loss.backward()
