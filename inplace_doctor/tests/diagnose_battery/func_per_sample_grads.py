"""Per-sample gradients with torch.func (vmap of grad over functional_call), and a Jacobian with
jacrev; the only in-place write fills a fresh buffer no backward node saved.

Kind: harmless
"""
import torch
import torch.nn as nn
from torch.func import functional_call, grad, jacrev, vmap

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
params = {k: v.detach() for k, v in model.named_parameters()}
x, y = torch.randn(6, 8), torch.randn(6, 1)


def loss_fn(params, xi, yi):
    out = functional_call(model, params, (xi.unsqueeze(0),))
    return (out - yi.unsqueeze(0)).pow(2).mean()


per_sample = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)
buffer = torch.zeros(8)
buffer.add_(x[0])  # twin: buffer = buffer + x[0]
jacobian = jacrev(lambda v: torch.tanh(v * 2))(buffer)
