"""A graph layer multiplies a sparse adjacency matrix by dense features and squares the result,
which is then rescaled through .data before backward: the square saved it, changed unseen.

Kind: counter-blind
"""
import torch

torch.manual_seed(0)
adjacency = torch.sparse_coo_tensor(torch.tensor([[0, 1, 1, 2], [2, 0, 2, 1]]), torch.ones(4), (3, 3))
weight = torch.randn(3, 2, requires_grad=True)
h = torch.sparse.mm(adjacency, weight)
out = h * h
h.data.mul_(0.5)  # WRITE twin: pass
loss = out.sum()
loss.backward()
