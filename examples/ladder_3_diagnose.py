# Step 3, precisely: during one forward, minigpt.diagnose logs every in-place
# write and every tensor saved for backward, then names each write that
# overwrote a saved tensor. It needs no backward and no anomaly mode.
from minigpt.data import build_dataset, probe_batch
from minigpt.diagnose import diagnose
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)
report = diagnose(model, x, y)
print(report.summary())
print(report.findings[-1].describe())  # the one backward meets first
print()
for switches in ({"inplace": True, "bypass": "hooks"},
                 {"relu_inplace": True, "exp_inplace": True}):
    other = diagnose(build_model(model_config(data, **switches), seed=0), x, y)
    print(", ".join(f"{k}={v}" for k, v in switches.items()) + ":")
    print(" ", other.summary())


# %% hidden checks: what the page says of this example, and the values its prose quotes

from book.checks import glue

assert len(report.findings) == 2 * model.config.n_layer, "the page says one finding per LayerNorm of the blocks"
assert not other.findings, "the page says the safe switches have no finding"
glue("diagnose_findings", len(report.findings))
