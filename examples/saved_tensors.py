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
print(node.name())
for name in sorted(n for n in dir(node) if n.startswith("_saved_")):
    value = getattr(node, name)
    shown = list(value.shape) if torch.is_tensor(value) else value
    print(f"  {name:<24}", shown)
print("_saved_input is h:", node._saved_input is h, "| h._version:", h._version)
# en: what run B does
# es: lo que hace la ejecución B
h.add_(block.attn(normed))
print("h._version:", h._version)
try:
    node._saved_input
except RuntimeError as exc:
    error = str(exc)
    print("node._saved_input:", error.split(":")[0])


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt import message

assert message.CORE in error, "the page says reading the saved input runs the version check"
