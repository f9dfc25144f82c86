import math

import torch

from minigpt.graph import graph_nodes, saved_tensors

torch.manual_seed(0)
T, d = 6, 8
q, k, v = (torch.randn(2, T, d, requires_grad=True) for _ in range(3))
future = ~torch.tril(torch.ones(T, T, dtype=torch.bool))
scores = (q @ k.transpose(-2, -1)) / math.sqrt(d)
for node in graph_nodes(scores.grad_fn):
    saved = {slot: shape for slot, shape, _ in saved_tensors(node)}
    if saved:
        print(node.name(), saved)


def gradients(inplace):
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(d)
    if inplace:
        scores.masked_fill_(future, float("-inf"))
    else:
        scores = scores.masked_fill(future, float("-inf"))
    loss = (scores.softmax(-1) @ v).square().sum()
    return torch.autograd.grad(loss, (q, k, v))


same = all(map(torch.equal, gradients(inplace=False), gradients(inplace=True)))
print(f"{same = }")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt.graph import graph_nodes, saved_tensors


def saved_slots(node):
    return {slot: shape for slot, shape, _ in saved_tensors(node)}


division = scores.grad_fn
product = next(n for n in graph_nodes(division) if n.name() == "BmmBackward0")
assert division.name() == "DivBackward0" and saved_slots(division) == {"other": []}, \
    "the page says the division by the square root of the head size saved only that scalar"
assert set(saved_slots(product)) == {"self", "mat2"}, "the page says the matrix product saved q and k"
assert [n for n in graph_nodes(division) if saved_slots(n)] == [division, product], \
    "the page says nothing else in the scores' graph saved a tensor"
scores = (q @ k.transpose(-2, -1)) / math.sqrt(d)
scores.masked_fill_(future, float("-inf"))
loss = (scores.softmax(-1) @ v).square().sum()
kept = [getattr(n, "_saved_" + slot) for n in graph_nodes(loss.grad_fn) for slot, *_ in saved_tensors(n)]
assert kept and all(t.untyped_storage().data_ptr() != scores.untyped_storage().data_ptr() for t in kept), \
    "the page says no node saved the scores that masked_fill_ overwrites"
