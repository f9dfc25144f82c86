# Run B under anomaly detection, which must be on during the forward too: that
# is when it records each op's stack. Its report is a UserWarning, printed as it
# is emitted; then the error.
import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model_b = build_model(model_config(data, inplace=True), seed=0)

with torch.autograd.set_detect_anomaly(True):
    logits, loss = model_b(x, y)
    loss.backward()  # raises
