import torch
import torch.nn as nn
import torch.nn.functional as F

from minigpt.data import build_dataset, probe_batch
from minigpt.graph import saved_tensors
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data), seed=0)
lookup = model.tok_emb(x).grad_fn
saved = {slot: shape for slot, shape, _ in saved_tensors(lookup)}
print(lookup.name(), saved)
rest = nn.Sequential(*model.blocks, model.ln_f, model.head)


def gradients(inplace):
    h, pos = model.tok_emb(x), model.pos_emb(torch.arange(x.size(1)))
    if inplace:
        h += pos
    else:
        h = h + pos
    loss = F.cross_entropy(rest(h).flatten(0, 1), y.flatten(), ignore_index=-1)
    return torch.autograd.grad(loss, list(model.parameters()))


same = all(map(torch.equal, gradients(inplace=False), gradients(inplace=True)))
print(f"{same = }")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt.compare import identical
from minigpt.train import switch_gradients

assert list(saved) == ["indices"] and saved["indices"] == list(x.shape), \
    "the page says the lookup saved the token indices"
total = model.tok_emb(x) + model.pos_emb(torch.arange(x.size(1)))
assert total.grad_fn.name() == "AddBackward0" and saved_tensors(total.grad_fn) == [], \
    "the page says the sum saves nothing"
names = [name for name, _ in model.named_parameters()]
assert identical(dict(zip(names, gradients(inplace=False))), switch_gradients(data)), \
    "the example's forward pass is the model's own: the same gradients as model(x, y)"
