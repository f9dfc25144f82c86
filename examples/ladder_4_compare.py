# Step 4: when nothing raises, compare gradients. Same weights, same batch:
# run A against the silent run B (bypass=hooks), parameter by parameter.
import tempfile
from pathlib import Path

from IPython.display import Image, display

from minigpt.compare import (compare_gradients, format_table, plot_comparison,
                             summary_line)
from minigpt.data import build_dataset
from minigpt.train import build_model, model_config, probe_gradients

data = build_dataset()
config_a = model_config(data)
config_b = model_config(data, inplace=True, bypass="hooks")
_, grads_a = probe_gradients(build_model(config_a, seed=0), data)
_, grads_b = probe_gradients(build_model(config_b, seed=0), data)
rows = compare_gradients(grads_a, grads_b)
print(format_table(rows))
print(summary_line(rows))
with tempfile.TemporaryDirectory() as folder:
    figure = plot_comparison(rows, Path(folder) / "grad-compare.png",
                             "run B (bypass=hooks) vs run A, same weights")
    display(Image(data=figure.read_bytes()))
