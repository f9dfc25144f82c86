import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
# en: same seed, same weights; only the residual differs
# es: misma semilla, mismos pesos; solo cambia la conexión residual
model_a = build_model(model_config(data, inplace=False), seed=0)  # h = h + ...
model_b = build_model(model_config(data, inplace=True), seed=0)  # h.add_(...)

logits_a, loss_a = model_a(x, y)
logits_b, loss_b = model_b(x, y)
print("torch.equal(logits_a, logits_b):", torch.equal(logits_a, logits_b))
loss_a.backward()
print("loss_a.backward(): ✓")


# %% hidden checks: what the page says of this example, and the values its prose quotes

import torch

assert torch.equal(logits_a, logits_b), "the page says the forward outputs are bitwise equal"
