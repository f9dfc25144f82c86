import contextlib
import sys

import torch
import torch.nn as nn

offload = "--offload" in sys.argv
torch.manual_seed(0)
cell = nn.RNNCell(input_size=4, hidden_size=8)
readout = nn.Linear(8, 1)
xs, target = torch.randn(5, 2, 4), torch.randn(2, 1)

with (torch.autograd.graph.save_on_cpu() if offload
      else contextlib.nullcontext()):
    h = torch.zeros(2, 8)
    for x_t in xs:
        # en: the running state, updated in place
        # es: el estado, actualizado in-place
        h += cell(x_t, h)
    loss = nn.functional.mse_loss(readout(h), target)
loss.backward()
print(f"loss: {loss.item():.4f}; "
      f"cell.weight_hh.grad.norm(): {cell.weight_hh.grad.norm():.4f}")
