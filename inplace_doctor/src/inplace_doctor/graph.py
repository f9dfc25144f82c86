"""Walking the backward graph: the nodes a backward will run, and every slot they saved.

Nothing here unpacks a slot: unpacking runs the slot's unpack hook, which may be user code, or
``torch.utils.checkpoint``'s, which recomputes the checkpointed block (under our own unpack
check, so the diagnoser would raise the program's error itself and run the block again). Slots
are read raw: our own records, the tensor a foreign pack hook kept, a custom Function's ctx
attributes, and a non-reentrant checkpoint's saved inputs, read from its frame.
"""

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from . import torch_private
from .memory import tensors_in
from .recorder import SavedRecord

CHECKPOINT_NODE = "checkpoint"  # the node name given to a non-reentrant checkpoint's saved inputs


@dataclass
class SavedSlot:
    node: str  # e.g. "NativeLayerNormBackward0"
    attribute: str  # as backward reads it (torch_private.raw_saved), or "ctx.<name>"
    tensor: torch.Tensor
    kind: str  # "ours" (our pack hook), "hooks" (someone else's hooks), "plain" (no hooks), "ctx"
    record: SavedRecord | None = None  # when kind == "ours"
    sequence_nr: int | None = None


def backward_nodes(roots: Iterable[Any]) -> list:
    """Every backward node reachable from the roots (each once), in breadth-first order."""
    seen: set[int] = set()
    queue, order = deque(roots), []
    while queue:
        node = queue.popleft()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)  # keeps the object alive, so ids are not reused meanwhile
        queue.extend(next_node for next_node, _ in node.next_functions)
    return order


def running_nodes(roots: Sequence[Any], inputs: Sequence[torch.Tensor] | None = None) -> list:
    """The nodes a backward from roots runs: all reachable ones, or with ``inputs`` (``grad``,
    ``backward(inputs=...)``) only those on a path to one of them.

    Only nodes that run unpack their slots, so only theirs can make backward raise or compute a
    wrong gradient (``torch.autograd.grad(loss, b)`` succeeds when the stale slot is on a branch
    not needed for b). An input's own node does not run: its gradient is taken where it enters.
    """
    nodes = backward_nodes(roots)
    if not inputs:
        return nodes
    leaves = {id(t) for t in inputs if t.grad_fn is None}
    targets = {id(t.grad_fn) for t in inputs if t.grad_fn is not None}
    targets |= {id(n) for n in nodes if id(torch_private.accumulated_variable(n)) in leaves}
    runs = _leading_to(roots, targets)
    return [node for node in nodes if runs.get(id(node))]


def _leading_to(roots: Sequence[Any], targets: set[int]) -> dict:
    """id(node) -> whether one of its next nodes is a target or leads to one (a depth-first walk
    of the graph, which is acyclic: each node is settled once all its next nodes are)."""
    runs: dict = {}
    for root in roots:
        if root is None or id(root) in runs:
            continue
        runs[id(root)] = False
        stack = [(root, iter(root.next_functions))]
        while stack:
            node, children = stack[-1]
            for child, _ in children:
                if child is None:
                    continue
                if id(child) in targets:
                    runs[id(node)] = True
                if id(child) not in runs:
                    runs[id(child)] = False
                    stack.append((child, iter(child.next_functions)))
                    break
                if runs[id(child)]:
                    runs[id(node)] = True
            else:
                stack.pop()
                if stack and runs[id(node)]:
                    runs[id(stack[-1][0])] = True
    return runs


def slots_of(node: Any, frames_seen: set[int] | None = None) -> Iterator[SavedSlot]:
    """Every SavedSlot of one node: its saved tensors, a custom Function's ctx tensors, and the
    saved inputs of the non-reentrant checkpoint whose holders it keeps (once per checkpoint)."""
    name, sequence_nr = node.name(), torch_private.node_sequence_nr(node)
    frames_seen = set() if frames_seen is None else frames_seen
    unread = torch_private.unread_slots(node)
    for raw in torch_private.raw_saved(node):
        if raw.attribute in unread:  # overwritten or not, its backward never reads it
            continue
        if isinstance(raw.packed, SavedRecord):
            yield SavedSlot(name, raw.attribute, raw.packed.tensor, "ours", raw.packed, sequence_nr)
            continue
        frame = torch_private.checkpoint_frame(raw.unpack_hook) if raw.hooked else None
        if frame is not None:
            if id(frame) not in frames_seen:
                frames_seen.add(id(frame))
                yield from _checkpoint_inputs(frame, sequence_nr)
            continue
        if (tensor := _forward_tensor(raw)) is not None:
            yield SavedSlot(name, raw.attribute, tensor, "hooks" if raw.hooked else "plain", sequence_nr=sequence_nr)
    for attribute, tensor in torch_private.ctx_tensors(node):
        yield SavedSlot(name, f"ctx.{attribute}", tensor, "ctx", sequence_nr=sequence_nr)


def _checkpoint_inputs(frame: Any, sequence_nr: int) -> Iterator[SavedSlot]:
    """The block inputs a non-reentrant checkpoint saved: its recomputation starts from them."""
    for index, saved in torch_private.checkpoint_saved_inputs(frame):
        packed, hooked, _ = torch_private.raw_saved_tensor(saved)
        attribute = f"inputs[{index}]"
        if isinstance(packed, SavedRecord):
            yield SavedSlot(CHECKPOINT_NODE, attribute, packed.tensor, "ours", packed, sequence_nr)
        elif isinstance(packed, torch.Tensor):
            yield SavedSlot(CHECKPOINT_NODE, attribute, packed, "hooks" if hooked else "plain", sequence_nr=sequence_nr)


def _forward_tensor(raw: torch_private.RawSaved) -> torch.Tensor | None:
    """The forward's tensor a slot saved outside our pack hook, or None when it cannot be told.

    Without hooks, what was packed is the tensor. Under a foreign hook, the packed object is
    followed only when it holds exactly one tensor (an identity-like hook, ``save_on_cpu``'s
    ``(device, tensor)``): writes to that tensor's memory are what backward will read. A hook that
    packed a copy holds other memory, so writes to the original rightly do not match it.
    """
    if isinstance(raw.packed, torch.Tensor):
        return raw.packed
    if raw.hooked:
        held = tensors_in(raw.packed)
        if len(held) == 1:
            return held[0]
    return None


def unreached_parameters(target: Any, nodes: list[Any]) -> list[str]:
    """Names of the target's parameters that require grad but feed no node of the graph."""
    if not isinstance(target, torch.nn.Module):
        return []
    reached = {id(variable) for node in nodes if (variable := torch_private.accumulated_variable(node)) is not None}
    return [name for name, p in target.named_parameters() if p.requires_grad and id(p) not in reached]
