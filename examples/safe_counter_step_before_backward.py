# Unsafe: optimizer.step() between a forward and its backward. The step writes
# the parameters in place, and the graph of that forward saved them (a Linear
# keeps its weight).
import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data), seed=0)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

_, loss_first = model(x, y)
_, loss_second = model(x, y)  # a second graph, which saved the same parameters
loss_first.backward()
optimizer.step()
print("first backward, then optimizer.step(): fine")
loss_second.backward()  # raises
