import torch

from minigpt import message
from minigpt.experiments import gradients
from minigpt.compare import identical
from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config, try_backward

# en: quoted from the draft, verbatim
# es: citado del borrador, tal cual
SEED = {
    "message": "which is output 0 of NativeLayerNormBackward, "
               "is at version 2; expected version 0 instead.",
    "shape": "[torch.FloatTensor [1, 8, 64]]",
    "producer": "NativeLayerNormBackward",
    "torch": "PyTorch ≥ 1.5",
    "accuracy": "3-10%",
    "accuracy_sentence": (
        "La precisión en test es peor que la baseline en 3-10%"),
    # en: the draft's words about run B's "variant 2"
    # es: las palabras del borrador sobre la «variante 2» de la ejecución B
    "variant2": (
        "Ejecución B (variante 2, sin detección de anomalías): "
        "puede computar en silencio gradientes erróneos "
        "(si un tensor guardado era la entrada de la op in-place) "
        "o crashear con un error menos informativo."),
    "breaks": "F.relu(x) → F.relu_(x), x.exp() → x.exp_()",
}

data = build_dataset()
x, y = probe_batch(data)
# en: the draft's shape
# es: la forma del borrador
x, y = x[:1, :8], y[:1, :8]


def run_b(anomaly):
    # en: run B's backward failure on the draft's input, or None
    # es: el error de B en la pasada hacia atrás con esa entrada, o None
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
print(f"torch {torch.__version__}, x.shape = {list(x.shape)}")
print("RuntimeError:", claim)
print("anomaly_node(on.warnings):", failing_node)
print(f"{off is not None = }")
print(f"{safe = }")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt import message
from execbook import glue

seed = SEED
assert claim in on.error and off and message.before_hint(off.error) == message.before_hint(on.error)
assert producer != seed["producer"] and seed["message"] not in on.error
assert all(safe.values())
for key, value in seed.items():
    glue(f"seed_{key}", value)
glue("errata_torch", torch.__version__)
glue("errata_claim", claim)
glue("errata_shape", shape)
glue("errata_failing_node", failing_node)
glue("errata_producer", producer)

# The draft's other mistakes, each checked here.
import inspect
from pathlib import Path

import minigpt.model
from execbook import REPO

# "a version counter on the storage of each tensor": the counter is the tensor's (and its views'):
# .data shares the storage and not the counter
t = torch.zeros(3)
alias = t.data
alias.add_(1)
assert alias.data_ptr() == t.data_ptr() and (t._version, alias._version) == (0, 1), \
    "the page says .data shares the storage, not the counter"

# "some (rare) ops do not check": the check is made by every node that unpacks what it saved
OPS = {"mul": lambda a: a * a, "exp": torch.exp, "tanh": torch.tanh, "sigmoid": torch.sigmoid,
       "softmax": lambda a: a.softmax(-1), "layer_norm": lambda a: torch.nn.functional.layer_norm(a, (3,)),
       "matmul": lambda a: a @ a.T, "pow": lambda a: a ** 3}


def raises_after_write(op):
    a = torch.randn(3, 3, requires_grad=True).clone()
    out = op(a)
    a.add_(0)  # the input written, versions moved, values not
    out.add_(0)  # and the output
    try:
        out.sum().backward()
    except RuntimeError as exc:
        return message.CORE in str(exc)
    return False


assert all(raises_after_write(op) for op in OPS.values()), "the page says every node checks what it saved"
glue("errata_ops_checked", len(OPS))

# "param.data.add_(grad, alpha=-lr)" in the optimizer: PyTorch's optimizers write under no_grad,
# and the counter counts it
p = torch.nn.Parameter(torch.ones(3))
p.grad = torch.ones(3)
torch.optim.SGD([p], lr=0.1, foreach=False).step()
assert p._version == 1 and p.grad_fn is None, "the page says optimizer.step() bumps the counter"

# "src/minigpt/block.py": the block lives in the model's module
block_file = Path(inspect.getsourcefile(minigpt.model.Block)).relative_to(REPO).as_posix()
assert not (REPO / "src" / "minigpt" / "block.py").exists()
glue("errata_block_file", block_file)
