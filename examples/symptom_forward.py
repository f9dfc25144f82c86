# Run A and run B share every weight (same seed); only the residual differs.
import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model_a = build_model(model_config(data, inplace=False), seed=0)  # h = h + ...
model_b = build_model(model_config(data, inplace=True), seed=0)  # h.add_(...)

logits_a, loss_a = model_a(x, y)
logits_b, loss_b = model_b(x, y)
print("forward outputs bitwise equal:", torch.equal(logits_a, logits_b))
print("max |logits_A - logits_B|:", (logits_a - logits_b).abs().max().item())
print("loss A, loss B:", loss_a.item(), loss_b.item())

loss_a.backward()  # run A: completes
params = list(model_a.parameters())
with_grad = sum(p.grad is not None for p in params)
print(f"run A backward completed: {with_grad} of {len(params)} parameters "
      "have a gradient")
