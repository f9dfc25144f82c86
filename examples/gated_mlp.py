import torch
import torch.nn as nn


class GatedMLP(nn.Module):
    def __init__(self, width=8, hidden=16):
        super().__init__()
        self.value = nn.Linear(width, hidden)
        self.gate = nn.Sequential(nn.Linear(width, hidden), nn.Sigmoid(),
                                  nn.ReLU(inplace=True))
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.out(self.value(x) * self.gate(x))


torch.manual_seed(0)
model = GatedMLP()
x, y = torch.randn(32, 8), torch.randn(32, 1)
loss = nn.functional.mse_loss(model(x), y)
loss.backward()
