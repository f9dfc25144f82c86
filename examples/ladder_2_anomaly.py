# Step 2: anomaly detection, on from the forward. When the backward fails, its
# UserWarning names the backward node that failed and the lines of our code
# that created it.
import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)
with torch.autograd.set_detect_anomaly(True):
    _, loss = model(x, y)
    try:
        loss.backward()
    except RuntimeError:
        pass  # step 1's error: what anomaly mode adds is its warning
