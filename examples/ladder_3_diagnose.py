# Step 3, precisely: during one forward, minigpt.diagnose logs every in-place
# write and every tensor saved for backward, then names each write that
# overwrote a saved tensor. It needs no backward and no anomaly mode.
from contextlib import chdir
from pathlib import Path

from myst_nb import glue

import minigpt
from minigpt.data import build_dataset, probe_batch
from minigpt.diagnose import diagnose
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)
report = diagnose(model, x, y)
with chdir(Path(minigpt.__file__).parent.parent):  # paths relative to the repo
    print(report)
print()
for switches in ({"inplace": True, "bypass": "hooks"},
                 {"relu_inplace": True, "exp_inplace": True}):
    other = diagnose(build_model(model_config(data, **switches), seed=0), x, y)
    print(", ".join(f"{k}={v}" for k, v in switches.items()) + ":")
    print(" ", other.summary())

glue("diagnose_findings", len(report.findings), display=False)
# The page says: one finding per LayerNorm in the blocks, none when safe.
assert len(report.findings) == 2 * model.config.n_layer
assert not other.findings
