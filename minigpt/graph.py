"""Walking the backward graph autograd recorded: nodes, the modules they belong to, saved slots."""

from collections.abc import Iterable

import torch
import torch.nn as nn
from torch.autograd.graph import Node


def graph_nodes(root: Node | None) -> list[Node]:
    """Every node reachable from root (e.g. ``loss.grad_fn``) through next_functions."""
    seen, stack = [], [root]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.append(node)
            stack += [next_node for next_node, _ in node.next_functions]
    return seen


def module_names(nodes: Iterable[Node], model: nn.Module) -> dict[Node, str]:
    """node -> the module whose parameters it feeds (directly or through a transpose)."""
    owner = {id(p): name.rsplit(".", 1)[0] for name, p in model.named_parameters()}
    names = {}
    for node in nodes:
        for next_node, _ in node.next_functions:
            if next_node is not None and next_node.name() == "TBackward0":
                next_node = next_node.next_functions[0][0]
            if next_node is not None and hasattr(next_node, "variable"):
                names[node] = owner[id(next_node.variable)]
    return names


def saved_slots(node: Node) -> list[str]:
    """The names of a node's saved attributes (``_saved_input``, ``_saved_result``, ...)."""
    return sorted(n for n in dir(node) if n.startswith("_saved_"))


def saved_tensors(node: Node) -> list[tuple[str, list[int], int]]:
    """[(slot, shape, version)] of the tensors a node saved; read before backward frees them.

    Reading goes through the same version check as backward: a stale slot raises here.
    """
    slots = []
    for slot in saved_slots(node):
        value = getattr(node, slot)
        if isinstance(value, torch.Tensor):
            slots.append((slot.removeprefix("_saved_"), list(value.shape), value._version))
    return slots
