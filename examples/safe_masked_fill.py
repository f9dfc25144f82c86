# Safe: masked_fill_ on the attention scores. The matmul that produced them
# saved q and k, the division by sqrt(d) saved only the scalar: nothing saved is
# overwritten.
import math

import torch

torch.manual_seed(0)
T, d = 6, 8
q, k, v = (torch.randn(2, T, d, requires_grad=True) for _ in range(3))
future = ~torch.tril(torch.ones(T, T, dtype=torch.bool))


def gradients(inplace):
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(d)
    if inplace:
        scores.masked_fill_(future, float("-inf"))
    else:
        scores = scores.masked_fill(future, float("-inf"))
    (scores.softmax(-1) @ v).square().sum().backward()
    grads = [t.grad for t in (q, k, v)]
    for t in (q, k, v):
        t.grad = None
    return grads


def saved(node):
    return {n.removeprefix("_saved_"): list(getattr(node, n).shape)
            for n in dir(node)
            if n.startswith("_saved_")
            and isinstance(getattr(node, n), torch.Tensor)}


scores = (q @ k.transpose(-2, -1)) / math.sqrt(d)
division, product = scores.grad_fn, scores.grad_fn.next_functions[0][0]
# past the reshapes, down to the batched matrix product
while not saved(product):
    product = product.next_functions[0][0]
print(division.name(), "saved", saved(division), "|",
      product.name(), "saved", saved(product))
same = all(torch.equal(a, b) for a, b in zip(gradients(False), gradients(True)))
print(f"gradients of q, k, v bitwise equal: {same}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert list(saved(division)) == ["other"] and saved(division)["other"] == [], \
    "the page says the division by the square root of the head size saved only that scalar"
assert set(saved(product)) == {"self", "mat2"}, "the page says the matrix product saved q and k"
