import torch
from torch.func import functional_call

from minigpt.compare import identical
from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, gradients, model_config

data = build_dataset()
x, y = probe_batch(data)
# en: in place: SGD writes each parameter with param.add_(grad, alpha=-lr)
# es: in-place: SGD escribe cada parámetro con param.add_(grad, alpha=-lr)
model = build_model(model_config(data), seed=0)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model(x, y)[1].backward()
optimizer.step()
optimizer.zero_grad()
model(x, y)[1].backward()
in_place = gradients(model)
# en: out of place: new tensors param - lr * grad
# es: out-of-place: tensores nuevos param - lr * grad
model = build_model(model_config(data), seed=0)
model(x, y)[1].backward()
new = {name: torch.add(p.detach(), p.grad, alpha=-0.1).requires_grad_()
       for name, p in model.named_parameters()}
loss = functional_call(model, new, (x, y))[1]
out_of_place = dict(zip(new, torch.autograd.grad(loss, list(new.values()))))

same = identical(in_place, out_of_place)
print(f"{len(new) = }, {same = }")


# %% hidden checks: what the page says of this example, and the values its prose quotes

reference = dict(build_model(model_config(data), seed=0).named_parameters())
written = dict(zip(reference, optimizer.param_groups[0]["params"]))  # the in-place model's
assert all(written[name]._version > r._version for name, r in reference.items()), \
    "the page says optimizer.step() writes every parameter in place"
assert all(p._version == reference[name]._version and torch.equal(p, reference[name])
           for name, p in model.named_parameters()), "the out-of-place side writes no parameter"
assert all(torch.equal(written[name], new[name]) for name in reference), "both sides took the same step"
assert not all(torch.equal(written[name], reference[name]) for name in reference), "it moved them"
assert all(v is not None for v in in_place.values()) and in_place.keys() == out_of_place.keys()
