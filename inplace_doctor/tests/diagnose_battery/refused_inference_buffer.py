"""A running buffer built under torch.inference_mode() (evaluation code reused), then updated in
place during training: PyTorch refuses an in-place update to an inference tensor outside
inference mode.

Kind: refused
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(8, 4)
with torch.inference_mode():
    running = torch.zeros(4)
out = model(torch.randn(16, 8))
running.add_(out.detach().mean(0))  # WRITE twin: running = running.clone().add_(out.detach().mean(0))
loss = out.pow(2).mean()
loss.backward()
