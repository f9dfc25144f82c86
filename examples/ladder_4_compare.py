# Step 4: when nothing raises, compare gradients. Same weights, same batch:
# run A against the silent run B (bypass=hooks), parameter by parameter.
from minigpt.compare import compare_gradients, summary_line
from minigpt.data import build_dataset
from minigpt.train import build_model, model_config, probe_gradients

data = build_dataset()
config_a = model_config(data)
config_b = model_config(data, inplace=True, bypass="hooks")
_, grads_a = probe_gradients(build_model(config_a, seed=0), data)
_, grads_b = probe_gradients(build_model(config_b, seed=0), data)
rows = compare_gradients(grads_a, grads_b)
print(summary_line(rows))
for row in sorted(rows, key=lambda r: -r.rel_error)[:4]:
    print(f"  {row.name:<22} {row.rel_error:7.2%}")
