from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model_b = build_model(model_config(data, inplace=True), seed=0)  # h.add_(...)

logits, loss = model_b(x, y)
loss.backward()


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt import message
from execbook import glue, raised

import torch

error = raised()
glue("torch_version", torch.__version__)
assert message.CORE in str(error)
line = f"{type(error).__name__}: {str(error).split(' Hint:')[0].strip()}"
assert "is at version" in line and "expected version" in line and "[torch." in line, \
    "the page says the whole line, before the hints, gives the tensor, its shape and its versions"
glue("error_core", line)
