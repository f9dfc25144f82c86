"""A key cache updated in place (copy_ under no_grad, in a helper) after the attention that read
it and before the backward.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
query = nn.Linear(8, 8)
cache = torch.randn(6, 8)


def refresh_cache(new_keys):
    with torch.no_grad():
        cache.copy_(new_keys)  # WRITE twin: pass


q = query(torch.randn(4, 8))
scores = torch.softmax(q @ cache.t(), dim=-1)
refresh_cache(torch.randn(6, 8))
loss = scores.pow(2).sum()
loss.backward()
