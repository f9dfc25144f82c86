"""A hand-written SGD step on a weight made with requires_grad=True, outside torch.no_grad():
PyTorch refuses the in-place update of a leaf that requires grad, at the write.

Kind: refused
"""
import torch

torch.manual_seed(0)
w = torch.randn(8, 1, requires_grad=True)
x, y = torch.randn(16, 8), torch.randn(16, 1)
for step in range(3):
    loss = (x @ w - y).pow(2).mean()
    loss.backward()
    w -= 0.1 * w.grad  # WRITE twin: w = (w - 0.1 * w.grad).detach().requires_grad_()
    w.grad = None
