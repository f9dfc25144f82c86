# What a LayerNorm keeps for its backward, and what h.add_ does to it.
import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, _ = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)
block = model.blocks[0]

h = model.tok_emb(x) + model.pos_emb(torch.arange(x.size(1)))
normed = block.ln1(h)
node = normed.grad_fn
print("backward node of ln1(h):", node.name())
for name in sorted(n for n in dir(node) if n.startswith("_saved_")):
    value = getattr(node, name)
    if isinstance(value, torch.Tensor):
        value = f"tensor {list(value.shape)}"
    print(f"  {name:<26} {value}")
print("ln1 saved h itself, not a copy:", node._saved_input is h)

print("h._version before the in-place add:", h._version)
h.add_(block.attn(normed))  # what run B does
print("h._version after the in-place add: ", h._version)
try:
    node._saved_input  # reading it runs the same check as backward does
except RuntimeError as exc:
    print("reading ln1's saved input now:\n ", str(exc).split(" Hint:")[0])
