"""The fix to try for a finding, in plain English: read from the writing op and its line."""

import re
from typing import TYPE_CHECKING

from .location import display_path

if TYPE_CHECKING:
    from .findings import Finding

_AUGMENTED = re.compile(r"(\S+)\s*([-+*/@]|//)=")
_INDEXED = re.compile(r"^\s*(\w[\w.]*)\s*\[.*\]\s*=[^=]")
_OPTIMIZER_OPS = ("aten._foreach_", "aten._fused_")


def _method(op_name: str) -> str | None:
    """``aten.relu_.default`` -> ``relu_``; None for ops that are not ``x.<name>_()``."""
    parts = op_name.split(".")
    if len(parts) >= 2 and parts[0] == "aten" and parts[1].endswith("_") and not parts[1].startswith("_"):
        return parts[1]
    return None


def _optimizer_step(finding: "Finding") -> bool:
    write = finding.write
    if write is None:
        return False
    code = write.location.code if write.location else ""
    return write.name.startswith(_OPTIMIZER_OPS) or ".step(" in code


def _update_of_values(finding: "Finding") -> bool:
    """A copy of new values into tensors a graph read, made on purpose: a target network or a
    cache updated with load_state_dict / copy_ under torch.no_grad()."""
    write = finding.write
    if write is None or _method(write.name) != "copy_":
        return False
    code = write.location.code if write.location else ""
    return "load_state_dict" in code or not write.grad_mode


def _outer_call(finding: "Finding") -> str:
    """ "train.py:31 (update_target())": the outermost user line of the write's chain, the call
    whose place in the loop decides the ordering; "" when the write is not inside a helper."""
    location = finding.write.location if finding.write else None
    if location is None or not location.callers:
        return ""
    outer = location.callers[-1]
    return f" (the call at {display_path(outer.path)}:{outer.line}: {outer.code})"


def _what_to_write(finding: "Finding") -> str:
    """How to make the write itself harmless."""
    write = finding.write
    assert write is not None
    location = write.location
    code = location.code if location else ""
    if location is not None and location.inplace_class:
        where = f", at {display_path(location.built.path)}:{location.built.line}" if location.built else ""
        name = location.inplace_class
        return f"build that {name} without inplace=True{where}: leave inplace=True out of the {name}(...) call"
    if (
        location is not None
        and location.module.split(".")[0] == "DistributedDataParallel"
        and _method(write.name) == "copy_"
        and not write.grad_mode
    ):
        return (
            "DistributedDataParallel's buffer broadcast at the start of this forward copied rank 0's buffers "
            "over this rank's, which an earlier forward's graph saved: run that graph's backward before "
            "the next forward, build DDP with broadcast_buffers=False, or keep the buffers equal on every "
            "rank (change them on all ranks, out of place)"
        )
    if _optimizer_step(finding):
        return (
            "call backward on every loss that uses these parameters before optimizer.step()"
            f"{_outer_call(finding)}, or run the forward again after the step (the step writes the "
            "parameters in place)"
        )
    if _update_of_values(finding):
        return (
            "this update overwrites values a graph still needs (a target network or a cache): make the "
            f"update{_outer_call(finding)} after every backward that needs the old values, or let the "
            "forward read a copy (.clone() of what it reads, or a separate target copy updated later)"
        )
    if ".data" in code:
        return (
            "do not write through .data, which hides the write from autograd: write out of place "
            "(h = h * 0.5), or, for a tensor no graph needs, inside torch.no_grad()"
        )
    augmented = _AUGMENTED.search(code)
    if augmented and write.name.split(".")[1] in ("add_", "sub_", "mul_", "div_", "floor_divide_", "matmul_"):
        target, sign = augmented.groups()
        return f"write it out of place: {target} = {target} {sign} ... instead of {target} {sign}= ..."
    indexed = _INDEXED.match(code)
    if indexed:
        target = indexed.group(1)
        return (
            f"assign into a copy ({target} = {target}.clone() just before), or build the new tensor "
            "without assignment (torch.where, torch.cat, masked_fill)"
        )
    method = _method(write.name)
    if method == "detach_":
        return "use the out-of-place x = x.detach() instead of x.detach_()"
    if method == "copy_":
        copied = re.search(r"(\w[\w.]*)\.copy_\((.*)\)", code)
        name, new = copied.groups() if copied else ("h", "new")
        return (
            f"bind the new tensor to the name instead of copying into the saved one: "
            f"{name} = {new}, not {name}.copy_({new})"
        )
    if method:
        plain = method[:-1]
        called = re.search(rf"(\w[\w.]*)\.{method}\(", code)  # h.add_(...)
        function = re.search(rf"\b(\w+)\.{method}\((\w[\w.]*)", code)  # F.relu_(h, ...)
        if function and function.group(1) in ("F", "torch", "functional", "nn.functional"):
            module, name = function.groups()
            return (
                f"use the out-of-place {module}.{plain}: {name} = {module}.{plain}({name}, ...) "
                f"instead of {module}.{method}({name}, ...)"
            )
        if called:
            name = called.group(1)
            return f"use the out-of-place {plain}: {name} = {name}.{plain}(...) instead of {name}.{method}(...)"
        return f"use the out-of-place {plain} (a new tensor) instead of {method}"
    return "make that write out of place (a new tensor), or clone the tensor before writing to it"


def _refusal_fix(finding: "Finding") -> str:
    from . import findings as f

    clone = "write into a copy (t = t.clone() first) or out of place (t = t * 2, t = t.relu())"
    fixes = {
        f.LEAF: "to change a parameter's values, write inside torch.no_grad(); to compute with it, "
        "write out of place (w = w + 1, w = w.relu())",
        f.SEVERAL_VIEWS: f"{clone}, or write the whole tensor before splitting it",
        f.NO_GRAD_VIEW: f"make the view outside torch.no_grad(), or {clone}",
        f.FUNCTION_VIEW: f"{clone}, or return a new tensor from the Function's forward (x.clone()), not a view",
        f.INFERENCE: f"make the tensor under torch.no_grad() instead of torch.inference_mode(), or {clone}",
        f.RESIZED: "build a new tensor of the new size (torch.cat, F.pad, new_zeros) instead of resizing this one",
        f.DETACHED_VIEW: "use the out-of-place x = x.detach() instead of x.detach_()",
        f.OUT_ARGUMENT: "drop out= (y = torch.mul(a, b)), or compute under torch.no_grad() if no gradient is needed",
    }
    fixes[f.VIEW_OF_LEAF] = fixes[f.LEAF]
    location = finding.write.location if finding.write else None
    fix = fixes.get(finding.node, clone)
    if location is not None and location.inplace_class:
        return f"build that {location.inplace_class} without inplace=True, or {fix}"
    return fix


def fix_for(finding: "Finding") -> str:
    from .findings import CTX_UNCHECKED, DETACHED, HOOKS_SKIP_CHECK, REFUSED, UNSEEN_WRITE, VIEW_MODIFIED

    if finding.check == REFUSED:
        return _refusal_fix(finding)
    if finding.check == DETACHED:
        return (
            "use the out-of-place x = x.detach() (a new tensor) instead of x.detach_(), which cuts "
            "the tensor a backward node saved out of the graph that still needs it"
        )
    if finding.check == VIEW_MODIFIED:
        return (
            "write into a copy: clone the view before writing (out = out.clone()), or write out of place "
            "(out = torch.full_like(out, 1), out = out * 0); for a custom Function, return a new tensor "
            "from forward (x[:2].clone()), not a view of its input"
        )
    if finding.check == UNSEEN_WRITE:
        if finding.replaced:
            return "do not assign x.data = ...; bind a new tensor to the name (x = new) instead"
        return (
            "write with torch ops, or write into a copy (t.detach().numpy().copy()); if the write must "
            "stay, call torch.autograd.graph.increment_version(t) after it, so that PyTorch's check sees it"
        )
    fix = (
        _what_to_write(finding)
        if finding.write is not None
        else "find what writes that tensor's memory and make it write a new tensor instead"
    )
    if not finding.touched:
        fix += (
            "; the saved bytes are intact, but the views share one version counter: give the written "
            "view its own memory (.clone()) before writing"
        )
    if finding.check == HOOKS_SKIP_CHECK:
        fix += (
            "; your saved_tensors_hooks keep the tensor itself, so PyTorch cannot check it (a pack hook "
            "that copies would keep the right values)"
        )
    elif finding.check == CTX_UNCHECKED:
        fix += "; keep the tensor with ctx.save_for_backward(x), not as ctx.x, so PyTorch checks it"
    return fix
