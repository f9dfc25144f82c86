"""Sequences of different lengths batched as a nested tensor, a sine and a padded sum: nothing is
written in place.

Kind: harmless
"""
import warnings

import torch

warnings.filterwarnings("ignore", "The PyTorch API of nested tensors")
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
batch = torch.nested.as_nested_tensor([torch.randn(2, 3) * w, torch.randn(4, 3) * w])
h = batch.sin()  # twin: h = batch.sin()
loss = torch.nested.to_padded_tensor(h, 0.0).sum()
loss.backward()
