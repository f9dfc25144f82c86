"""relu_ on a checkpointed block's tanh output (use_reentrant=False): backward recomputes the
block, so the tanh output it saved is not the one written.

Kind: harmless
"""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
fc, head = nn.Linear(8, 16), nn.Linear(16, 1)
y = checkpoint(lambda t: torch.tanh(fc(t)), torch.randn(32, 8), use_reentrant=False)
y.relu_()  # twin: y = y.relu()
loss = head(y).pow(2).mean()
loss.backward()
