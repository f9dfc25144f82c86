"""An LSTM's state carried over in place, h0.copy_(hn.detach()), before backward: it saved h0.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
lstm, head = nn.LSTM(4, 8), nn.Linear(8, 1)
h0, c0 = torch.zeros(1, 2, 8), torch.zeros(1, 2, 8)
out, (hn, cn) = lstm(torch.randn(6, 2, 4), (h0, c0))
h0.copy_(hn.detach())  # WRITE twin: h0 = hn.detach()
c0.copy_(cn.detach())  # WRITE twin: c0 = cn.detach()
loss = head(out[-1]).pow(2).mean()
loss.backward()
