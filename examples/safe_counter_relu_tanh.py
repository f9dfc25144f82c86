import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
fc = nn.Linear(8, 8)
x = torch.randn(4, 8)

F.relu(torch.tanh(fc(x))).sum().backward()
print("F.relu(torch.tanh(...)): backward() ✓")
hidden = torch.tanh(fc(x))
loss = F.relu_(hidden).sum()
loss.backward()  # RuntimeError
