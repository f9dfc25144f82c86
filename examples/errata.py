# The seed's claims, checked against this PyTorch. The seed's example had one
# sequence of 8 tokens, so run B is replayed on an input of exactly that shape.
import torch
from myst_nb import glue

from book import message
from book.experiments import gradients
from minigpt.compare import identical
from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config, try_backward

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
    """BackwardFailure of run B on the seed-shaped input (None if backward completed)."""
    return try_backward(build_model(model_config(data, inplace=True), seed=0), x, y, anomaly)


on, off = run_b(anomaly=True), run_b(anomaly=False)
parts = message.parts(on.error)
shape = parts["tensor"]
claim = (f"which is output 0 of {parts['output_of']}, is at version {parts['version_now']}; "
         f"expected version {parts['version_expected']} instead.")
failing_node = message.anomaly_node(on.warnings)
safe = {switch: identical(gradients(), gradients(**{switch: True})) for switch in ("relu_inplace", "exp_inplace")}


def yes(flag):
    return "yes" if flag else "no"


print(f"torch {torch.__version__}")
for what, seed, here in [
    ("error text", SEED["message"], claim),
    ("shape in the message", SEED["shape"], shape),
    ("node whose backward fails", SEED["node"], failing_node),
    ("raises without anomaly mode", "no (silent)", yes(off)),
    ("relu_inplace changes gradients", "yes", yes(not safe["relu_inplace"])),
    ("exp_inplace changes gradients", "yes", yes(not safe["exp_inplace"])),
]:
    print(f"{what}\n  seed: {seed}\n  here: {here}")

# What the errata box states in words: the build fails if PyTorch disagrees.
assert claim in on.error and off and message.before_hint(off.error) == message.before_hint(on.error)
assert failing_node != SEED["node"] and SEED["message"] not in on.error
assert all(safe.values())

for key, value in SEED.items():
    glue(f"seed_{key}", value, display=False)
glue("errata_claim", claim, display=False)
glue("errata_shape", shape, display=False)
glue("errata_failing_node", failing_node, display=False)
