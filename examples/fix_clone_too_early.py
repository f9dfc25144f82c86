from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True, clone="before"), seed=0)
_, loss = model(x, y)
loss.backward()
