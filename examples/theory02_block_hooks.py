import torch
from torch.autograd.graph import saved_tensors_hooks

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, _ = probe_batch(data)
model = build_model(model_config(data), seed=0)
h = model.tok_emb(x) + model.pos_emb(torch.arange(x.size(1)))
packed, unpacked = [], []


def pack(t):
    packed.append(t)
    return t


# en: what unpack returns is what the backward pass gets
# es: lo que devuelve unpack es lo que recibe la pasada hacia atrás
def unpack(kept):
    unpacked.append(kept)
    return kept


with saved_tensors_hooks(pack, unpack):
    out = model.blocks[0](h)
out.sum().backward()
print(f"{len(packed) = }, {len(unpacked) = }")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from collections import Counter

assert Counter(map(id, packed)) == Counter(map(id, unpacked)), \
    "the page says backward read back each saved tensor once"

seen = []
with saved_tensors_hooks(lambda t: seen.append(t) or t, lambda t: t):
    scaled = torch.ones(2, requires_grad=True) / 8**0.5
assert not seen and torch.is_tensor(scaled.grad_fn._saved_other), \
    "the page says a division by a Python number keeps it without the hooks"
