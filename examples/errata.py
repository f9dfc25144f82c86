# The first draft's claims, checked against this PyTorch. The draft's example
# had one sequence of 8 tokens, so run B is replayed on an input of that shape.
import torch

from minigpt import message
from minigpt.experiments import gradients
from minigpt.compare import identical
from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config, try_backward

SEED = {  # quoted from the draft, verbatim
    "message": "which is output 0 of NativeLayerNormBackward, "
               "is at version 2; expected version 0 instead.",
    "shape": "[torch.FloatTensor [1, 8, 64]]",
    "producer": "NativeLayerNormBackward",
    "torch": "PyTorch ≥ 1.5",
    "accuracy": "3-10%",
    "accuracy_sentence": (
        "La precisión en test es peor que la baseline en 3-10%"),
    # the draft's words about run B's "variant 2"
    "variant2": (
        "Ejecución B (variante 2, sin detección de anomalías): "
        "puede computar en silencio gradientes erróneos "
        "(si un tensor guardado era la entrada de la op in-place) "
        "o crashear con un error menos informativo."),
    "breaks": "F.relu(x) → F.relu_(x), x.exp() → x.exp_()",
}

data = build_dataset()
x, y = probe_batch(data)
x, y = x[:1, :8], y[:1, :8]  # the draft's shape


def run_b(anomaly):
    """Run B's backward failure on the draft-shaped input (None if it
    completed)."""
    model = build_model(model_config(data, inplace=True), seed=0)
    return try_backward(model, x, y, anomaly)


on, off = run_b(anomaly=True), run_b(anomaly=False)
parts = message.parts(on.error)
shape, producer = parts["tensor"], parts["output_of"]
claim = (f"which is output 0 of {producer}, "
         f"is at version {parts['version_now']}; "
         f"expected version {parts['version_expected']} instead.")
failing_node = message.anomaly_node(on.warnings)
safe = {switch: identical(gradients(), gradients(**{switch: True}))
        for switch in ("relu_inplace", "exp_inplace")}
print(f"torch {torch.__version__}, input {list(x.shape)}")
print("error:", claim)
print("node whose backward fails (anomaly mode):", failing_node)
print("raises without anomaly mode:", off is not None)
print("relu_inplace / exp_inplace change the gradients:",
      not safe["relu_inplace"], "/", not safe["exp_inplace"])


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt import message
from execbook.checks import glue

seed = SEED
assert claim in on.error and off and message.before_hint(off.error) == message.before_hint(on.error)
assert producer != seed["producer"] and seed["message"] not in on.error
assert all(safe.values())
for key, value in seed.items():
    glue(f"seed_{key}", value)
glue("errata_claim", claim)
glue("errata_shape", shape)
glue("errata_failing_node", failing_node)
glue("errata_producer", producer)
