# Safe: in-place dropout on a Linear's output. The Linear saved its input and
# weight; dropout saves its mask. Same random seed on both sides, so the same
# units are dropped.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
fc, proj = nn.Linear(8, 32), nn.Linear(32, 8)
x = torch.randn(4, 8, requires_grad=True)


def gradients(inplace):
    torch.manual_seed(1)  # the dropout mask
    hidden = F.dropout(fc(x), p=0.2, training=True, inplace=inplace)
    proj(hidden).square().sum().backward()
    tensors = [x, *fc.parameters(), *proj.parameters()]
    grads = [t.grad for t in tensors]
    for t in tensors:
        t.grad = None
    return grads


def saved(node):
    return {n.removeprefix("_saved_"): list(getattr(node, n).shape)
            for n in dir(node)
            if n.startswith("_saved_")
            and isinstance(getattr(node, n), torch.Tensor)}


hidden = F.dropout(fc(x), p=0.2, training=True, inplace=True)
print("dropout's node:", hidden.grad_fn.name(), "saved", saved(hidden.grad_fn),
      "(the scaled mask); its input's node:",
      hidden.grad_fn.next_functions[0][0].name(),
      "saved", saved(hidden.grad_fn.next_functions[0][0]))
same = all(torch.equal(a, b) for a, b in zip(gradients(False), gradients(True)))
print(f"gradients of the input and of both Linears bitwise equal: {same}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

node = hidden.grad_fn
linear = node.next_functions[0][0]
assert list(saved(node)) == ["other"], "the page says dropout saves only its mask"
assert set(saved(linear)) == {"mat1", "mat2"}, "the page says the Linear saved its input and weight"
