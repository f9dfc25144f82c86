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
