# Safe: optimizer.step() after backward. It updates the parameters in place, but
# the graph that saved them has already been used (and freed) by backward. The
# check: the step-1 gradients after an in-place SGD step equal those after the
# same update done out of place.
import torch
from torch.func import functional_call

from minigpt.compare import identical
from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

LR = 0.1
data = build_dataset()
x, y = probe_batch(data)

# In place: torch.optim.SGD writes every parameter with
# param.add_(grad, alpha=-lr).
model = build_model(model_config(data), seed=0)
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
model(x, y)[1].backward()
optimizer.step()
optimizer.zero_grad()
model(x, y)[1].backward()
in_place = {name: p.grad for name, p in model.named_parameters()}

# Out of place: new tensors torch.add(param, grad, alpha=-lr); no parameter is
# ever written.
model = build_model(model_config(data), seed=0)
params = dict(model.named_parameters())
grads = torch.autograd.grad(functional_call(model, params, (x, y))[1],
                            list(params.values()))
updated = {name: torch.add(p.detach(), g, alpha=-LR).requires_grad_()
           for (name, p), g in zip(params.items(), grads)}
loss = functional_call(model, updated, (x, y))[1]
out_of_place = dict(
    zip(updated, torch.autograd.grad(loss, list(updated.values()))))

same = identical(in_place, out_of_place)
print(f"mini-GPT, gradients after one SGD step, {len(in_place)} parameters "
      f"bitwise equal: {same}")
