"""torch.func.grad of a functional loss that scales tanh's output in place: PyTorch raises its
in-place error from inside the transform, naming no line.

Kind: raises
"""
import torch
from torch.func import grad

torch.manual_seed(0)
params = {"w1": torch.randn(8, 16) * 0.3, "w2": torch.randn(16, 1) * 0.3}
x, y = torch.randn(32, 8), torch.randn(32, 1)


def loss_fn(params, x, y):
    h = torch.tanh(x @ params["w1"])
    h.mul_(0.5)  # WRITE twin: h = h * 0.5
    return ((h @ params["w2"]) - y).pow(2).mean()


grads = grad(loss_fn)(params, x, y)
params = {k: p - 0.1 * grads[k] for k, p in params.items()}
