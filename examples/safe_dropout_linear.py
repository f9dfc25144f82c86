import torch
import torch.nn as nn
import torch.nn.functional as F

from minigpt.graph import graph_nodes, saved_tensors

torch.manual_seed(0)
fc, proj = nn.Linear(8, 32), nn.Linear(32, 8)
x = torch.randn(4, 8, requires_grad=True)
hidden = F.dropout(fc(x), p=0.2, training=True, inplace=True)
# en: what each node saved, and its shape
# es: lo que guardó cada nodo, y su forma
for node in graph_nodes(hidden.grad_fn):
    saved = {slot: shape for slot, shape, _ in saved_tensors(node)}
    if saved:
        print(node.name(), saved)


def gradients(inplace):
    # en: the same dropout mask on both sides
    # es: la misma máscara de dropout en los dos lados
    torch.manual_seed(1)
    hidden = F.dropout(fc(x), p=0.2, training=True, inplace=inplace)
    loss = proj(hidden).square().sum()
    return torch.autograd.grad(loss, [x, *fc.parameters(), *proj.parameters()])


same = all(map(torch.equal, gradients(inplace=False), gradients(inplace=True)))
print(f"{same = }")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt.graph import graph_nodes, saved_tensors


def saved_slots(node):
    return {slot: shape for slot, shape, _ in saved_tensors(node)}


dropout, linear = hidden.grad_fn, hidden.grad_fn.next_functions[0][0]
assert dropout.name() == "MulBackward0" and list(saved_slots(dropout)) == ["other"], \
    "the page says dropout is a multiplication that saves only its mask"
mask = dropout._saved_other
assert mask.shape == hidden.shape and set(mask.unique().tolist()) <= {0.0, 1 / (1 - 0.2)}, \
    "the page says dropout multiplies by a scaled random mask"
assert linear.name() == "AddmmBackward0" and set(saved_slots(linear)) == {"mat1", "mat2"}, \
    "the page says the Linear saved its input and weight"
assert [n for n in graph_nodes(dropout) if saved_slots(n)] == [dropout, linear], \
    "nothing else in the graph saved a tensor"
assert torch.equal(linear._saved_mat1, x) and torch.equal(linear._saved_mat2, fc.weight.t()), \
    "mat1 is the Linear's input, mat2 its weight (transposed)"
