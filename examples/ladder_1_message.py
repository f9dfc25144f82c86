# Step 1: read the message. Every piece of it is a clue; take it apart.
import re

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)
_, loss = model(x, y)
try:
    loss.backward()
except RuntimeError as exc:
    message = str(exc)

found = re.search(r"\[torch\.(\w+) \[([\d, ]+)\]\], which is output (\d+) "
                  r"of (\w+), is at version (\d+); expected version (\d+)",
                  message)
dtype, shape, output, node, now, saved = found.groups()
batch, tokens, width = x.size(0), x.size(1), model.config.n_embd
print(f"tensor: {dtype} [{shape}]")
print(f"  (batch, tokens, n_embd) = ({batch}, {tokens}, {width}): an activation")
print(f"written last by: output {output} of {node}")
print(f"version now / when saved: {now} / {saved}: "
      f"{int(now) - int(saved)} in-place write(s) since it was saved")
