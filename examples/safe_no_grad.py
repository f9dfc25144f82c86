import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, _ = probe_batch(data)
model_a = build_model(model_config(data, inplace=False), seed=0)
model_b = build_model(model_config(data, inplace=True), seed=0)  # h.add_(...)
with torch.no_grad():
    logits_a, _ = model_a(x)
    logits_b, _ = model_b(x)
recorded = logits_b.grad_fn is not None
same = torch.equal(logits_a, logits_b) and not recorded
print(f"torch.equal(logits_a, logits_b): {torch.equal(logits_a, logits_b)}; "
      f"{recorded = }")
