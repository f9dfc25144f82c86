"""Features shared by an auxiliary head and the main head, whose nn.ReLU(inplace=True) writes
them after the auxiliary Linear saved them (its input, for its weight's gradient).

Kind: raises
"""
import torch
import torch.nn as nn


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(8, 16)
        self.aux_head = nn.Linear(16, 1)
        self.act = nn.ReLU(inplace=True)  # BUILT twin: self.act = nn.ReLU()
        self.head = nn.Linear(16, 1)

    def forward(self, x):
        features = self.backbone(x)
        aux = self.aux_head(features)
        return self.head(self.act(features)), aux  # WRITE


torch.manual_seed(0)
model = TwoHeads()
out, aux = model(torch.randn(32, 8))
loss = out.pow(2).mean() + 0.5 * aux.pow(2).mean()
loss.backward()
