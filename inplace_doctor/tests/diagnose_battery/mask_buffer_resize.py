"""A hand-written dropout that reuses one mask buffer, resized and refilled at each call: the
second call (the auxiliary branch) overwrites the mask the first multiplication saved.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder, head, aux_head = nn.Linear(8, 16), nn.Linear(16, 1), nn.Linear(16, 1)
MASK = torch.empty(0)


def dropout(h, p=0.2):
    mask = MASK.resize_(h.shape).bernoulli_(1 - p)  # WRITE twin: mask = torch.empty(h.shape).bernoulli_(1 - p)
    return h * mask / (1 - p)


x = torch.randn(32, 8)
main = head(dropout(encoder(x)))
aux = aux_head(dropout(encoder(x[:8])))
loss = main.pow(2).mean() + 0.1 * aux.pow(2).mean()
loss.backward()
