"""The backward graph autograd recorded, as the theory pages print it: its nodes (the diagnoser's
walk, inplace_doctor.graph), the modules they belong to, their saved tensors, and the logs and
tables of them. What PyTorch keeps private (saved slots, versions) is read through the
diagnoser's inplace_doctor.torch_private, the one place that relies on it."""

import re
from collections.abc import Iterable
from typing import Any

import torch
import torch.nn as nn
from torch.autograd.graph import Node

from inplace_doctor import torch_private
from inplace_doctor.graph import backward_nodes


def graph_nodes(root: Node | None) -> list[Node]:
    """Every node reachable from root (e.g. ``loss.grad_fn``), each once, nearest first."""
    return backward_nodes([root])


def module_names(nodes: Iterable[Node], model: nn.Module) -> dict[Node, str]:
    """node -> the module whose parameters it feeds (directly or through a transpose)."""
    owner = {id(p): name.rsplit(".", 1)[0] for name, p in model.named_parameters()}
    names = {}
    for node in nodes:
        for next_node, _ in node.next_functions:
            if next_node is not None and next_node.name() == "TBackward0":
                next_node = next_node.next_functions[0][0]
            if (variable := torch_private.accumulated_variable(next_node)) is not None:
                names[node] = owner[id(variable)]
    return names


def saved_slots(node: Node) -> list[str]:
    """The attributes that keep a node's saved tensors (``_saved_input``, ``_saved_result``, ...)."""
    return torch_private.saved_attributes(node)


def saved_tensors(node: Node) -> list[tuple[str, list[int], int]]:
    """[(slot, shape, version)] of the tensors a node saved, read through backward's version check
    (a stale slot raises here), before backward frees them."""
    slots = []
    for slot in saved_slots(node):
        value = torch_private.unpack_saved(node, slot)
        if isinstance(value, torch.Tensor):
            slots.append((slot.removeprefix("_saved_"), list(value.shape), torch_private.version(value)))
    return slots


def same_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two tensors live in the same memory (one storage): a view and its base do, and so
    do ``t.data``, ``t.detach()`` and ``t``; a copy does not."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def probe_loss(inplace: bool = False) -> tuple[nn.Module, torch.Tensor]:
    """The mini-GPT built with seed 0 and its loss on the probe batch: run A, or run B with ``inplace=True``
    (``loss.grad_fn`` is the root of the backward graph the theory pages walk)."""
    from .data import build_dataset, probe_batch
    from .train import build_model, model_config

    data = build_dataset()
    x, y = probe_batch(data)
    model = build_model(model_config(data, inplace=inplace), seed=0)
    _, loss = model(x, y)
    return model, loss


def saved_log(module: nn.Module, h: torch.Tensor) -> list[dict[str, Any]]:
    """Every tensor ``module(h)`` saves for backward, in order, as ``saved_tensors_hooks`` sees it: a dict
    each of ``module`` (the submodule running), ``node`` (``"NodeName.slot"``, found after the forward
    by reading every ``_saved_*`` attribute), ``shape``, ``version`` (at save time), ``memory_of_h`` and
    ``tensor``. ``h`` is left as the forward left it (its version says whether the module wrote into it)."""
    names = {sub: name for name, sub in module.named_modules() if name}
    log: list[dict[str, Any]] = []
    running = [type(module).__name__]  # which submodule is running: a stack of names
    read: dict[str, int] = {}

    def pack(t: torch.Tensor) -> int:
        log.append(
            dict(
                module=running[-1],
                shape=list(t.shape),
                version=torch_private.version(t),
                tensor=t,
                memory_of_h=same_memory(t, h),
            )
        )
        return len(log) - 1

    def unpack(i: int) -> torch.Tensor:
        read["entry"] = i
        return log[i]["tensor"]

    def enter(sub: nn.Module, args: Any) -> None:
        running.append(names[sub])

    def leave(sub: nn.Module, args: Any, output: Any) -> None:  # returning None keeps the output
        running.pop()

    handles = [
        handle for sub in names for handle in (sub.register_forward_pre_hook(enter), sub.register_forward_hook(leave))
    ]
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            out = module(h)
    finally:
        for handle in handles:
            handle.remove()
    for node in graph_nodes(out.grad_fn):
        for slot in saved_slots(node):
            read.clear()
            torch_private.unpack_saved(node, slot)
            if "entry" in read:
                log[read["entry"]]["node"] = f"{node.name()}.{slot.removeprefix('_saved_')}"
    return log


def saved_log_table(log_a: list[dict[str, Any]], log_b: list[dict[str, Any]]) -> str:
    """Run A's and run B's saved_log of one module side by side: a line per saved tensor, its version at
    save time and whether it lives in h's memory, in A and in B. Code-like headers: one output serves
    both languages."""
    mark = {True: "✓", False: "-"}
    lines = [
        f"{'#':>2}  {'module':<10}{'node.slot':<34}{'shape':<18}{'_version':>15}  {'h':>8}",
        f"{'':>2}  {'':<10}{'':<34}{'':<18}{'A':>7}{'B':>8}  {'A':>5}{'B':>6}",
    ]
    for i, (a, b) in enumerate(zip(log_a, log_b, strict=True)):
        lines.append(
            f"{i:>2}  {a['module']:<10}{a['node']:<34}{str(a['shape']):<18}"
            f"{a['version']:>7}{b['version']:>8}  {mark[a['memory_of_h']]:>5}{mark[b['memory_of_h']]:>6}"
        )
    return "\n".join(lines)


def walk_table(executed: list[Node], saved: dict[Node, list[tuple[str, list[int], int]]], model: nn.Module) -> str:
    """The backward pass as a table, a line per node in the order it ran: its name, the module it feeds,
    its saved tensors as ``slot [shape] @version``; an AccumulateGrad line names its parameter."""
    modules = module_names(executed, model)
    parameter = {id(p): name for name, p in model.named_parameters()}
    variables = {node: torch_private.accumulated_variable(node) for node in executed}  # AccumulateGrad's
    functions = [n for n in executed if variables[n] is None]
    lines = [f"{'#':>4}  {'node':<30}{'module':<20}saved: slot [shape] @_version"]
    for node in executed:
        if variables[node] is not None:  # saves nothing: adds the gradient into the parameter's .grad
            lines.append(f"{'':>4}  {'AccumulateGrad':<30}-> {parameter[id(variables[node])]}")
            continue
        slots = ", ".join(f"{slot} {shape} @{version}" for slot, shape, version in saved[node])
        lines.append(f"{functions.index(node):>4}  {node.name():<30}{modules.get(node, ''):<20}{slots}".rstrip())
    return "\n".join(lines)


VERSIONS = re.compile(r"is at version (\d+); expected version (\d+) instead")  # the check's message


def stale_entry(node: Node, slot: str, error: RuntimeError) -> dict[str, Any]:
    """What a failed read of a saved attribute tells: ``node``, ``slot``, ``shape``, ``saved_at`` and
    ``now`` (from the version check's message), and ``memory`` (its storage, read unchecked)."""
    if (found := VERSIONS.search(str(error))) is None:
        raise error
    now, saved_at = map(int, found.groups())
    raw = next(r.packed for r in torch_private.raw_saved(node) if r.attribute == slot)  # unchecked
    if not isinstance(raw, torch.Tensor):  # saved through a pack hook: what it packed is not the tensor
        raise error
    return dict(
        node=node,
        slot=slot.removeprefix("_saved_"),
        shape=list(raw.shape),
        saved_at=saved_at,
        now=now,
        memory=raw.untyped_storage().data_ptr(),
    )


def stale_saved(nodes: Iterable[Node]) -> tuple[list[dict[str, Any]], list[tuple[Node, str, torch.Tensor]]]:
    """(stale: the stale_entry of each read that raised, valid: (node, slot, tensor) of each that passed):
    every saved tensor of these nodes read through the version check, as backward will."""
    stale, valid = [], []
    for node in nodes:
        for slot in saved_slots(node):
            try:
                value = torch_private.unpack_saved(node, slot)
            except RuntimeError as exc:
                stale.append(stale_entry(node, slot, exc))
                continue
            if isinstance(value, torch.Tensor):
                valid.append((node, slot.removeprefix("_saved_"), value))
    return stale, valid


def stale_table(
    stale: list[dict[str, Any]], valid: list[tuple[Node, str, torch.Tensor]], modules: dict[Node, str]
) -> str:
    """stale_saved's reading as a report: the counts, a line per stale tensor (version saved -> now),
    then each valid tensor sharing a stale one's memory."""
    memory = {s["memory"] for s in stale}
    lines = [
        f"len(valid) = {len(valid)}, len(stale) = {len(stale)}, len(memory) = {len(memory)}",
        "",
        f"{'#':>2}  {'module':<15}{'node.slot':<32}{'shape':<14}saved_at -> now",
    ]
    for i, s in enumerate(stale, 1):
        lines.append(
            f"{i:>2}  {modules.get(s['node'], ''):<15}{s['node'].name() + '.' + s['slot']:<32}"
            f"{str(s['shape']):<14}{s['saved_at']} -> {s['now']}"
        )
    for node, slot, value in valid:
        if value.untyped_storage().data_ptr() in memory:
            lines.append(
                f"valid, in memory: {modules.get(node, '')} {node.name()}.{slot}, "
                f"saved_at {torch_private.version(value)}"
            )
    return "\n".join(lines)
