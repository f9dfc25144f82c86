# Safe: F.relu_ right after a Linear (GPTConfig.relu_inplace). The Linear saved its input and
# weight, not its output; ReLU saves its own result, which is what relu_ leaves behind.
import torch

from minigpt.data import build_dataset
from minigpt.train import build_model, model_config, probe_gradients

CASE = "F.relu_ after a Linear (feed-forward)"
data = build_dataset()
_, out_of_place = probe_gradients(build_model(model_config(data), seed=0), data)
_, in_place = probe_gradients(build_model(model_config(data, relu_inplace=True), seed=0), data)
same = all(torch.equal(out_of_place[name], in_place[name]) for name in out_of_place)
CHECK = f"mini-GPT probe batch, {len(in_place)} parameter gradients bitwise equal: {same}"
print(CHECK)
assert same
