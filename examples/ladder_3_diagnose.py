# Step 3, precisely: during one forward, inplace_doctor logs every in-place
# write and every tensor saved for backward, then names each write that
# overwrote a saved tensor. It needs no backward and no anomaly mode.
from minigpt.data import build_dataset, probe_batch
from inplace_doctor import diagnose
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)
report = diagnose(model, x, y)
print(report.summary())
print(report.findings[-1].describe())  # the one backward meets first
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

from execbook.checks import glue

assert len(report.findings) == 2 * model.config.n_layer, "the page says one finding per LayerNorm of the blocks"
for bypass in ("hooks", "ctx"):
    found = others[f"inplace=True, bypass={bypass}"].findings
    assert len(found) == len(report.findings) and all(f.silent for f in found), \
        f"the page says bypass={bypass} shows the same writes, all silent"
assert not others["inplace=True, bypass=data"].findings, "the page says bypass=data shows no finding"
assert not others["relu_inplace=True, exp_inplace=True"].findings, "the page says the safe switches have no finding"
glue("diagnose_findings", len(report.findings))
