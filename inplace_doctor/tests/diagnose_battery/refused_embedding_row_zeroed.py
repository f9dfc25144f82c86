"""The padding row of an embedding zeroed by index assignment outside torch.no_grad(): the row
is a view of a leaf that requires grad, and PyTorch refuses to write it.

Kind: refused
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
embedding = nn.Embedding(10, 4)
embedding.weight[0] = 0.0  # WRITE twin: embedding.weight.data[0] = 0.0
tokens = torch.tensor([[0, 3, 5], [2, 0, 7]])
loss = embedding(tokens).pow(2).sum()
loss.backward()
