"""Walking the backward graph: every node reachable from the outputs, every slot it saved."""

from collections import deque
from dataclasses import dataclass

import torch

from . import torch_private
from .memory import tensors_in
from .recorder import SavedRecord


@dataclass
class SavedSlot:
    node: str  # e.g. "NativeLayerNormBackward0"
    attribute: str  # as backward reads it (torch_private.raw_saved), or "ctx.<name>"
    tensor: torch.Tensor
    kind: str  # "ours" (our pack hook), "hooks" (someone else's hooks), "plain" (no hooks), "ctx"
    record: SavedRecord = None  # when kind == "ours"
    sequence_nr: int = None


def backward_nodes(roots):
    """Every backward node reachable from the roots (each once), in breadth-first order."""
    seen, queue, order = set(), deque(roots), []
    while queue:
        node = queue.popleft()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)  # keeps the object alive, so ids are not reused meanwhile
        queue.extend(next_node for next_node, _ in node.next_functions)
    return order


def slots_of(node):
    """Every SavedSlot of one node: its saved tensors, and a custom Function's ctx tensors."""
    name, sequence_nr = node.name(), torch_private.node_sequence_nr(node)
    for raw in torch_private.raw_saved(node):
        if isinstance(raw.packed, SavedRecord):
            yield SavedSlot(name, raw.attribute, raw.packed.tensor, "ours", raw.packed)
            continue
        tensor = _forward_tensor(raw)
        if isinstance(tensor, torch.Tensor):
            yield SavedSlot(name, raw.attribute, tensor, "hooks" if raw.hooked else "plain", sequence_nr=sequence_nr)
    for attribute, tensor in torch_private.ctx_tensors(node):
        yield SavedSlot(name, f"ctx.{attribute}", tensor, "ctx", sequence_nr=sequence_nr)


def _forward_tensor(raw):
    """The forward's tensor a slot saved outside our pack hook, or None when it cannot be told."""
    if not raw.hooked:  # no hooks: packed is the tensor, read without the version check
        return raw.packed
    if isinstance(raw.packed, torch.Tensor):  # an identity-like foreign hook kept the tensor
        return raw.packed
    # A foreign hook packed something else: follow its memory only if it kept it.
    tensor = raw.unpack()  # runs the foreign unpack hook
    kept = {torch_private.storage_address(t) for t in tensors_in(raw.packed)}
    if not isinstance(tensor, torch.Tensor) or torch_private.storage_address(tensor) not in kept:
        return None  # a copy made at unpack time: its memory says nothing about the forward
    return tensor


def unreached_parameters(target, nodes):
    """Names of the target's parameters that require grad but feed no node of the graph."""
    if not isinstance(target, torch.nn.Module):
        return []
    reached = {id(variable) for node in nodes if (variable := torch_private.accumulated_variable(node)) is not None}
    return [name for name, p in target.named_parameters() if p.requires_grad and id(p) not in reached]
