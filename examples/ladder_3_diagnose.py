from minigpt.data import build_dataset, probe_batch
from inplace_doctor import diagnose
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)
report = diagnose(model, x, y)
print(report.summary())
# en: the finding the backward pass meets first
# es: el hallazgo con el que se topa primero la pasada hacia atrás
print(report.findings[-1].describe())
print()
others = {}
for switches in ({"inplace": True, "bypass": "hooks"},
                 {"inplace": True, "bypass": "ctx"},
                 {"inplace": True, "bypass": "data"},
                 {"relu_inplace": True, "exp_inplace": True}):
    name = ", ".join(f"{k}={v}" for k, v in switches.items())
    others[name] = diagnose(
        build_model(model_config(data, **switches), seed=0), x, y)
    print(f"{name}:\n  {others[name].summary()}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue

assert len(report.findings) == 2 and all(f.repeats == model.config.n_layer - 1 for f in report.findings), \
    "the page says one finding per residual line of Block.forward, each met in every block"
for bypass in ("hooks", "ctx"):
    found = others[f"inplace=True, bypass={bypass}"].findings
    assert len(found) == len(report.findings) and all(f.silent for f in found), \
        f"the page says bypass={bypass} shows the same writes, all silent"
assert not others["inplace=True, bypass=data"].findings, "the page says bypass=data shows no finding"
assert not others["relu_inplace=True, exp_inplace=True"].findings, "the page says the safe switches have no finding"
glue("diagnose_findings", len(report.findings))

# bypass=data: the .data adds do overwrite the input every block LayerNorm saved (values changed,
# version not), but those LayerNorms are no longer reachable from the loss, so no backward needs
# what they saved.
import torch

model_data = build_model(model_config(data, inplace=True, bypass="data"), seed=0)
saved, layer_norms = [], []


def keep(module, inputs, output):
    saved.append((inputs[0], inputs[0].detach().clone(), inputs[0]._version))
    layer_norms.append(output.grad_fn)


for block in model_data.blocks:
    for layer_norm in (block.ln1, block.ln2):
        layer_norm.register_forward_hook(keep)
_, loss_data = model_data(x, y)
overwritten = [not torch.equal(t, values) and t._version == version for t, values, version in saved]
assert len(overwritten) == 2 * model.config.n_layer and all(overwritten), \
    "the page says the .data adds overwrite every block LayerNorm's saved input, values changed, versions not"
reachable, stack = set(), [loss_data.grad_fn]
while stack:
    node = stack.pop()
    if node is not None and node not in reachable:
        reachable.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
assert not reachable & set(layer_norms), "the page says no block LayerNorm is reachable from the loss"


def data_write_on_needed():  # a .data write over a tensor a backward does need
    w = torch.randn(4, requires_grad=True)
    h = torch.tanh(w)  # tanh saves its output
    h.data.mul_(2)
    return h.sum()


data_findings = diagnose(data_write_on_needed).findings
assert data_findings and all(f.silent for f in data_findings), \
    "the page says a .data write over a needed saved tensor is reported, as silent"
glue("layernorm_block_count", len(saved))
