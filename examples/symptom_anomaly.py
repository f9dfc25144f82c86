# Run B under anomaly detection, which must be on during the forward too: that
# is when it records each op's stack. Its report is a UserWarning, printed as it
# is emitted, without the frames of Python, Jupyter or torch. Then the error.
import sys
import warnings
from pathlib import Path

import torch

import minigpt
from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

NOT_OURS = (sys.prefix, sys.base_prefix, str(Path(torch.__file__).parent),
            "<frozen")
PACKAGE_DIR = str(Path(minigpt.__file__).parent)
REPO_DIR = str(Path(PACKAGE_DIR).parent)


def readable(text):
    """The forward traceback with our frames only, paths relative to the repo."""
    lines, kept, skipped = text.splitlines(), [], 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith('File "'):
            path = line.split('"')[1]
            if path.startswith(NOT_OURS) and not path.startswith(PACKAGE_DIR):
                skipped += 1
                following = lines[i + 1].lstrip() if i + 1 < len(lines) else "("
                i += 1 if following.startswith(('File "', "(")) else 2
                continue
        if line.startswith(" (Triggered internally"):
            kept.append(f"  [{skipped} frames of Python, Jupyter and torch left out]")
        kept.append(line.replace(REPO_DIR + "/", ""))
        i += 1
    return "\n".join(kept)


def show(message, category, filename, lineno, file=None, line=None):
    text = readable(str(message))
    print(f"{category.__name__}: {text}\n", file=sys.stderr, flush=True)


data = build_dataset()
x, y = probe_batch(data)
model_b = build_model(model_config(data, inplace=True), seed=0)

with warnings.catch_warnings(), torch.autograd.set_detect_anomaly(True):
    warnings.simplefilter("always")
    warnings.showwarning = show  # restored when the with block ends
    logits, loss = model_b(x, y)
    loss.backward()  # raises
