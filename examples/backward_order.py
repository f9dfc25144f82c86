import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)

# en: (module name, its node, the version of h when it saved it)
# es: (nombre del módulo, su nodo, la versión de h cuando lo guardó)
saved = []


def record(name):
    def hook(module, inputs, output):
        saved.append((name, output.grad_fn, inputs[0]._version))
    return hook


for name, module in model.named_modules():
    if isinstance(module, torch.nn.LayerNorm):
        module.register_forward_hook(record(name))
logits, loss = model(x, y)

# en: the backward pass runs the nodes in reverse order of creation
# es: la pasada hacia atrás ejecuta los nodos en orden inverso al de creación
stale = []
backward_order = sorted(saved, key=lambda s: -s[1]._sequence_nr())
for name, node, version in backward_order:
    try:
        now = node._saved_input._version
    except RuntimeError as exc:
        now = int(str(exc).split("is at version ")[1].split(";")[0])
        stale.append(name)
    print(f"{name:<14} saved={version} now={now} stale={now != version}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue

assert backward_order[0][0] not in stale, "the page says the final LayerNorm's saved h is current"
assert all(name.startswith("blocks.") for name in stale), "the page says the stale ones are the blocks' LayerNorms"
glue("first_stale", stale[0])
glue("stale_count", len(stale))
glue("layernorm_count", len(saved))
