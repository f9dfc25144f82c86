# Safe: exp_ on the attention scores (GPTConfig.exp_inplace, in the softmax written by hand).
# The tensor it overwrites, scores - max, comes from a subtraction, which saves nothing;
# exp saves its own result, the tensor exp_ leaves behind.
import torch

from minigpt.data import build_dataset
from minigpt.train import build_model, model_config, probe_gradients

CASE = "exp_ on the attention scores (q @ k^T, shifted)"
data = build_dataset()
_, out_of_place = probe_gradients(build_model(model_config(data), seed=0), data)
_, in_place = probe_gradients(build_model(model_config(data, exp_inplace=True), seed=0), data)
same = all(torch.equal(out_of_place[name], in_place[name]) for name in out_of_place)
CHECK = f"mini-GPT probe batch, {len(in_place)} parameter gradients bitwise equal: {same}"
print(CHECK)
assert same
