# The seed's claims, checked against this PyTorch. The seed's example had one
# sequence of 8 tokens, so run B is replayed on an input of exactly that shape.
import re

import torch
from myst_nb import glue

from minigpt.data import build_dataset, probe_batch
from minigpt.compare import identical
from minigpt.train import build_model, model_config, switch_gradients, try_backward

SEED = {  # quoted from the seed, verbatim
    "message": "which is output 0 of NativeLayerNormBackward, "
               "is at version 2; expected version 0 instead.",
    "shape": "[torch.FloatTensor [1, 8, 64]]",
    "node": "NativeLayerNormBackward",
    "torch": "PyTorch ≥ 1.5",
    "accuracy": "3-10%",
    "breaks": "F.relu(x) → F.relu_(x), x.exp() → x.exp_()",
}

data = build_dataset()
x, y = probe_batch(data)
x, y = x[:1, :8], y[:1, :8]  # the seed's shape


def run_b(anomaly):
    """(error message, node named by anomaly mode's warning or None)."""
    failure = try_backward(build_model(model_config(data, inplace=True), seed=0), x, y, anomaly)
    if failure is None:
        return None, None
    node = re.search(r"Error detected in (\w+)", " ".join(failure.warnings))
    return failure.error, node and node.group(1)


def bitwise_equal_to_a(switch):
    return identical(grads_a, switch_gradients(data, **{switch: True}))


message_on, failing_node = run_b(anomaly=True)
message_off, _ = run_b(anomaly=False)
found = re.search(r"(\[torch\.\w+ \[[\d, ]+\]\]), (which is output \d+ of \w+, "
                  r"is at version \d+; expected version \d+ instead\.)",
                  message_on)
shape, claim = found.groups()
grads_a = switch_gradients(data)
safe = {s: bitwise_equal_to_a(s) for s in ("relu_inplace", "exp_inplace")}

def yes(flag):
    return "yes" if flag else "no"


print(f"torch {torch.__version__}")
for what, seed, here in [
    ("error text", SEED["message"], claim),
    ("shape in the message", SEED["shape"], shape),
    ("node whose backward fails", SEED["node"], failing_node),
    ("raises without anomaly mode", "no (silent)", yes(message_off)),
    ("relu_inplace changes gradients", "yes", yes(not safe["relu_inplace"])),
    ("exp_inplace changes gradients", "yes", yes(not safe["exp_inplace"])),
]:
    print(f"{what}\n  seed: {seed}\n  here: {here}")

# What the errata box states in words: the build fails if PyTorch disagrees.
hint_free = [m.split(" Hint:")[0] for m in (message_off, message_on)]
assert message_off and hint_free[0] == hint_free[1]
assert all(safe.values()) and failing_node != SEED["node"]
assert SEED["message"] not in message_on

for key, value in SEED.items():
    glue(f"seed_{key}", value, display=False)
glue("errata_claim", claim, display=False)
glue("errata_shape", shape, display=False)
glue("errata_failing_node", failing_node, display=False)
