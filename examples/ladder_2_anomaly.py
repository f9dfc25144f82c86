# Step 2: anomaly detection. Which backward node failed, and which line of our
# code created it?
import linecache
import re
import warnings
from pathlib import Path

import torch

import minigpt
from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

PACKAGE = Path(minigpt.__file__).parent
data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)
with warnings.catch_warnings(record=True) as caught, \
        torch.autograd.set_detect_anomaly(True):
    warnings.simplefilter("always")
    _, loss = model(x, y)
    try:
        loss.backward()
    except RuntimeError:
        pass
report = next(str(w.message) for w in caught
              if "Error detected in" in str(w.message))
node = re.search(r"Error detected in (\w+)", report).group(1)
print("failed backward node:", node)
print("created by (outermost first, innermost last):")
for path, line in re.findall(r'File "([^"]+)", line (\d+)', report):
    if Path(path).is_relative_to(PACKAGE):
        source = linecache.getline(path, int(line)).strip()
        print(f"  {Path(path).relative_to(PACKAGE.parent)}:{line}  {source}")
