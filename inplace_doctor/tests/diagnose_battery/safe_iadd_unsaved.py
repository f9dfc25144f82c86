"""A prior added to the logits in place, logits += prior: nothing saved the logits yet.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder, head = nn.Linear(8, 16), nn.Linear(16, 5)
prior = torch.log(torch.tensor([0.4, 0.3, 0.1, 0.1, 0.1]))
x, y = torch.randn(32, 8), torch.randint(0, 5, (32,))
logits = head(torch.relu(encoder(x)))
logits += prior  # twin: logits = logits + prior
loss = nn.functional.cross_entropy(logits, y)
loss.backward()
