"""A gated MLP: nn.ReLU(inplace=True) right after the sigmoid, which saved its output.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(8, 16),
    nn.Sigmoid(),
    nn.ReLU(inplace=True),  # BUILT twin: nn.ReLU(),
    nn.Linear(16, 1),
)
x, y = torch.randn(32, 8), torch.randn(32, 1)
loss = nn.functional.mse_loss(model(x), y)  # WRITE
loss.backward()
