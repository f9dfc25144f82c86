# What a backward node keeps from the forward: its _saved_* attributes, tensors
# among them.
import torch
import torch.nn.functional as F


def saved_tensors(node):
    """'name [shape]' for every tensor the node saved (other saved values are
    sizes, dims...)."""
    found = []
    for name in sorted(n for n in dir(node) if n.startswith("_saved_")):
        value = getattr(node, name)
        if isinstance(value, torch.Tensor):
            found.append(f"{name.removeprefix('_saved_')} {list(value.shape)}")
    return ", ".join(found) or "(no tensor)"


torch.manual_seed(0)
a = torch.randn(2, 3, requires_grad=True)
b = torch.randn(2, 3, requires_grad=True)
w = torch.randn(4, 3, requires_grad=True)
ln_weight = torch.ones(3, requires_grad=True)
outputs = {
    "a + b": a + b,
    "a * b": a * b,
    "a.sin()": a.sin(),
    "a.exp()": a.exp(),
    "a.tanh()": a.tanh(),
    "a.sigmoid()": a.sigmoid(),
    "F.relu(a)": F.relu(a),
    "a.softmax(-1)": a.softmax(-1),
    "F.linear(a, w)": F.linear(a, w),
    "F.layer_norm(a, (3,), ln_weight)": F.layer_norm(a, (3,), ln_weight),
}
print(f"{'forward':<34}{'backward node':<26}saved tensors")
for expression, out in outputs.items():
    print(f"{expression:<34}{out.grad_fn.name():<26}"
          f"{saved_tensors(out.grad_fn)}")

# Saving keeps a reference to the same memory, not a copy.
y = a.exp()
print("\nexp's saved result is y's memory:",
      y.grad_fn._saved_result.data_ptr() == y.data_ptr())
print("mul's saved self is a itself:    ", (a * b).grad_fn._saved_self is a)


# %% hidden checks: what the page says of this example, and the values its prose quotes

import torch

def slots(out):
    node = out.grad_fn
    return {n.removeprefix("_saved_") for n in dir(node)
            if n.startswith("_saved_") and isinstance(getattr(node, n), torch.Tensor)}

saved = {expression: slots(out) for expression, out in outputs.items()}
assert saved["a + b"] == set(), "the page says an addition keeps no tensor"
assert saved["a * b"] == {"self", "other"} and saved["a.sin()"] == {"self"}, "inputs kept"
for expression in ("a.exp()", "a.tanh()", "a.sigmoid()", "F.relu(a)", "a.softmax(-1)"):
    assert saved[expression] == {"result"}, f"the page says {expression} keeps its output"
assert {"self", "mat2"} <= saved["F.linear(a, w)"], "the page says Linear keeps its input and weight"
assert {"input", "result1", "result2"} <= saved["F.layer_norm(a, (3,), ln_weight)"]
assert y.grad_fn._saved_result.data_ptr() == y.data_ptr(), "the page says saving keeps a reference"
