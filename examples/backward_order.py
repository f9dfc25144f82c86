# Every LayerNorm of run B: the version of h when it saved its input, and now.
# Backward visits nodes in reverse order of creation, so the first stale one it
# meets is the one that raises.
import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)

saved = []  # (module name, backward node, version of its input when saved)


def record(name):
    def hook(module, inputs, output):
        saved.append((name, output.grad_fn, inputs[0]._version))
    return hook


for name, module in model.named_modules():
    if isinstance(module, torch.nn.LayerNorm):
        module.register_forward_hook(record(name))
logits, loss = model(x, y)

first_stale = None
backward_order = sorted(saved, key=lambda s: -s[1]._sequence_nr())
for name, node, version in backward_order:
    try:
        now, verdict = node._saved_input._version, "ok"
    except RuntimeError as exc:
        now = int(str(exc).split("is at version ")[1].split(";")[0])
        verdict = "stale" if first_stale else "stale: backward raises here"
        first_stale = first_stale or name
    print(f"{name:<14} saved h at version {version}, now {now}: {verdict}")
print("first stale saved input in backward order:", first_stale)


# %% hidden checks: what the page says of this example, and the values its prose quotes

from book.checks import glue

glue("first_stale", first_stale)
