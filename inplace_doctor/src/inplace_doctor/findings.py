"""A finding: what was overwritten, how PyTorch's checks treat it, and the fix to try (read from
the writing op and its line)."""

import re
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

from .location import Location, Site, at
from .recorder import Op


class Check(StrEnum):
    """How PyTorch's own checks treat an overwritten saved tensor: a finding's ``check``; each
    value is the sentence the report prints (a ``str``)."""

    RAISES = "backward raises PyTorch's version-counter RuntimeError"
    DETACHED = "backward raises: PyTorch refuses a saved tensor that was detached in place (.detach_())"
    COUNTER_BLIND = (
        "silent: the version counter did not see the write (through .data, a fused optimizer step, or "
        "DistributedDataParallel's buffer broadcast)"
    )
    HOOKS_SKIP_CHECK = "silent: saved through saved_tensors_hooks, so PyTorch skips the version check"
    CTX_UNCHECKED = "silent: kept as a ctx attribute, not with save_for_backward, so never checked"
    UNSEEN_WRITE = "silent: the values changed with no write PyTorch could see (e.g. through numpy)"
    VIEW_MODIFIED = (
        "raises: PyTorch refuses to use a view (a custom Function's output, or one of several views an op "
        "returned) whose base or another view of it was modified in place"
    )
    REFUSED = "raises at the write: PyTorch refuses this in-place write before it happens"
    AUTOCAST_STALE = (
        "silent: a forward read autocast's cached low-precision copy of a parameter written in place since "
        "(the cache lives as long as the autocast region), so it computed with the old values"
    )

    GRAD_HOOK = (
        "silent: a gradient hook wrote the gradient it was handed in place, which PyTorch forbids: that "
        "tensor may also be another branch's gradient (an add hands one tensor to both of its inputs)"
    )


RAISES = Check.RAISES
DETACHED = Check.DETACHED
COUNTER_BLIND = Check.COUNTER_BLIND
HOOKS_SKIP_CHECK = Check.HOOKS_SKIP_CHECK
CTX_UNCHECKED = Check.CTX_UNCHECKED
UNSEEN_WRITE = Check.UNSEEN_WRITE
VIEW_MODIFIED = Check.VIEW_MODIFIED
REFUSED = Check.REFUSED
AUTOCAST_STALE = Check.AUTOCAST_STALE
GRAD_HOOK = Check.GRAD_HOOK
RAISING = (RAISES, DETACHED, VIEW_MODIFIED, REFUSED)

# What PyTorch refuses to write in place, told by the written tensor's state (see refused_target).
LEAF = "a leaf tensor that requires grad"
VIEW_OF_LEAF = "a view of a leaf tensor that requires grad"
SEVERAL_VIEWS = "one of several views an op returned (split, chunk, unbind, ...)"
NO_GRAD_VIEW = "a view made under torch.no_grad(), written with grad mode on"
FUNCTION_VIEW = "a view a custom autograd.Function returned"
INFERENCE = "an inference tensor (made under torch.inference_mode()), outside inference mode"
INFERENCE_VIEW = "a view made under torch.inference_mode(), written outside it"
RESIZED = "a tensor that requires grad, which PyTorch does not resize"
DETACHED_VIEW = "a view, which PyTorch does not detach in place"
OUT_ARGUMENT = "an out= tensor, while an input requires grad"


def count(n: int, noun: str, plural: str = "") -> str:
    """ "1 op", "2 ops": the number and its noun, agreeing."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def listed(items: list[str], limit: int = 4) -> str:
    """ "a, b, c, d, ...": the first items, and whether there are more."""
    return ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")


@dataclass
class Finding:
    node: str
    attribute: str
    saved_at: Location | None
    saved_version: int | None  # None when it cannot be told
    current_version: int
    write: Op | None  # the first write after the save (None: no write PyTorch could see)
    later_writes: list[Op]  # further writes after that one
    check: str  # how PyTorch's checks treat it (RAISES, COUNTER_BLIND, ...)
    touched: bool = True  # False: the write hit other bytes of the same storage (a sibling view)
    through: Site | None = None  # an unseen write: where a NumPy array of that memory was made
    changed_after: Site | None = None  # an unseen write: the line after which the saved values had changed
    replaced: bool = False  # an unseen write: the tensor's data was swapped (``x.data = ...``)
    backward: int | None = None  # the backward pass that would read it (1, 2, ...); None: no backward ran
    repeats: int = 0  # further slots overwritten the same way (the same key), in this pass or later ones
    modules: list[str] = field(default_factory=list)  # the other modules (layers) the same write was met in
    passes: list[int] = field(default_factory=list)  # the other backward passes that met it
    left: bool = False  # in a graph the program left alive that no backward examined
    used_at: Location | None = None  # a stale autocast copy: the forward's line that read it
    order: int = field(default=-1, repr=False)  # the node's sequence number: backward runs higher ones first

    @property
    def silent(self) -> bool:
        return self.check not in RAISING

    @property
    def key(self) -> tuple:
        """What makes two findings the same bug: the same write at the same line, the same check,
        whichever module (layer) ran it, whichever slot it overwrote; a loop's steps, or two
        backward passes, repeat one. With no write seen: the same save, slot and check."""
        where = self.write.location if self.write is not None else None
        if self.write is not None and where is not None:
            return self.write.name, where.path, where.line, self.check
        return None, self.saved_at and self.saved_at[:3], self.node, self.attribute, self.check

    def merge(self, other: "Finding") -> None:
        """Count ``other``, the same bug met again (``key``), here: where else it was met."""
        self.repeats += 1 + other.repeats
        module = other.write.location.module if other.write and other.write.location else ""
        mine = self.write.location.module if self.write and self.write.location else ""
        for name in [module, *other.modules]:
            if name and name != mine and name not in self.modules:
                self.modules.append(name)
        for number in [other.backward, *other.passes]:
            if number is not None and number != self.backward and number not in self.passes:
                self.passes.append(number)

    def noted_in(self, findings: dict[tuple, "Finding"]) -> "Finding":
        """The first finding of this bug in findings (this one when new), this one counted in it."""
        first = findings.setdefault(self.key, self)
        if first is not self:
            first.merge(self)
        return first

    @property
    def fix(self) -> str:
        if self.left:
            return (
                "a backward from the graph the program left would meet this: if none will run, keep "
                "loss.item() or out.detach() instead of the tensor (which also frees its graph); if one will, "
                + _fix_of_the_write(self)
            )
        return _fix_of_the_write(self)

    def headline(self) -> str:
        op = self.write.name if self.write else "an unseen write"
        if self.check == DETACHED:
            return f"{op} detached {self.node}.{self.attribute} in place"
        if self.check == VIEW_MODIFIED:
            return f"{op} modified {self.node}, a view PyTorch will not let autograd use after that"
        if self.check == REFUSED:
            return f"{op} was refused by PyTorch: it writes in place {self.node}"
        if self.check == AUTOCAST_STALE:
            return f"{op} wrote a parameter whose {self.node} a later forward still read"
        if self.check == GRAD_HOOK:
            return f"{op} wrote in place {self.node}"
        return f"{op} overwrote {self.node}.{self.attribute}" if self.node else f"{op} overwrote {self.attribute}"

    def describe(self) -> str:
        lines = [self.headline()]
        if self.write and self.write.location:
            lines.append(f"  written at: {self.write.location}")
            location = self.write.location
            if location.built is not None:
                lines.append(f"  built at:   {location.built} ({location.inplace_class}, made with inplace=True)")
            elif location.inplace_class:
                lines.append(
                    f"  built:      {location.inplace_class}, made with inplace=True before the diagnoser "
                    "started (build the model under it to see the line)"
                )
        if self.changed_after is not None:
            lines.append(f"  written at: {self.changed_after} (the saved values had changed after this line)")
        if self.through is not None:
            lines.append(f"  through:    a NumPy array of the same memory, made at {self.through}")
        if self.replaced:
            lines.append("  through:    its data was replaced (x.data = ...), which no version counter sees")
        if self.write and self.write.location:
            lines.extend(f"  called from: {site}" for site in self.write.location.callers)
        if self.check == GRAD_HOOK:
            lines.append(f"  registered: {self.saved_at or '?'}")
        elif self.check == AUTOCAST_STALE:
            lines.append(f"  cast at:    {self.saved_at or '?'}")
            lines.append(f"  read at:    {self.used_at or '?'} (the old values)")
        elif self.check not in (VIEW_MODIFIED, REFUSED):
            lines.append(f"  saved at:   {self.saved_at or '?'}")
            saved = "?" if self.saved_version is None else self.saved_version
            lines.append(f"  version:    saved at {saved}, now {self.current_version}")
        lines.append(f"  check:      {self.check}")
        if not self.touched:
            lines.append(
                "  note:       the write hit other bytes of the same storage: the saved values are "
                "intact, but views share one version counter"
            )
        if self.later_writes:
            sites = Counter(at(w.location.path, w.location.line) for w in self.later_writes if w.location is not None)
            where = ", ".join(site if n == 1 else f"{site} ({n} times)" for site, n in sites.items())
            lines.append(f"  then written {count(len(self.later_writes), 'more time')}: {where}")
        if self.repeats:
            elsewhere = [f"in {listed(self.modules)}"] if self.modules else []
            if self.passes:
                elsewhere.append(f"at backward {listed([str(n) for n in sorted(self.passes)], 6)}")
            lines.append(
                f"  met again:  {count(self.repeats, 'more time')}, the same write"
                + (f" ({'; '.join(elsewhere)})" if elsewhere else "")
            )
        lines.append(f"  fix:        {self.fix}")
        return "\n".join(lines)


# ---- the fix to try

_AUGMENTED = re.compile(r"(\S+)\s*([-+*/@]|//)=")
_INDEXED = re.compile(r"^\s*(\w[\w.]*)\s*\[.*\]\s*=[^=]")
_OPTIMIZER_OPS = ("aten._foreach_", "aten._fused_")


def _method(op_name: str) -> str | None:
    """``aten.relu_.default`` -> ``relu_``; None for ops that are not ``x.<name>_()``."""
    parts = op_name.split(".")
    if len(parts) >= 2 and parts[0] == "aten" and parts[1].endswith("_") and not parts[1].startswith("_"):
        return parts[1]
    return None


def _outer_call(finding: Finding) -> str:
    """ "train.py:31 (update_target())": the outermost user line of the write's chain, the call
    whose place in the loop decides the ordering; "" when the write is not inside a helper."""
    location = finding.write.location if finding.write else None
    if location is None or not location.callers:
        return ""
    outer = location.callers[-1]
    return f" (the call at {at(outer.path, outer.line)}: {outer.code})"


def _what_to_write(finding: Finding) -> str:
    """How to make the write itself harmless."""
    write = finding.write
    assert write is not None
    location = write.location
    code = location.code if location else ""
    if location is not None and location.inplace_class:
        where = f", at {at(location.built.path, location.built.line)}" if location.built else ""
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
    if write.name.startswith(_OPTIMIZER_OPS) or ".step(" in code:
        return (
            "call backward on every loss that uses these parameters before optimizer.step()"
            f"{_outer_call(finding)}, or run the forward again after the step (the step writes the "
            "parameters in place)"
        )
    # A copy of new values into tensors a graph read, made on purpose: a target network or a cache
    # updated with load_state_dict / copy_ under torch.no_grad()
    if _method(write.name) == "copy_" and ("load_state_dict" in code or not write.grad_mode):
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
    if indexed := _INDEXED.match(code):
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


def _refusal_fix(finding: Finding) -> str:
    clone = "write into a copy (t = t.clone() first) or out of place (t = t * 2, t = t.relu())"
    fixes = {
        LEAF: "to change a parameter's values, write inside torch.no_grad(); to compute with it, "
        "write out of place (w = w + 1, w = w.relu())",
        SEVERAL_VIEWS: f"{clone}, or write the whole tensor before splitting it",
        NO_GRAD_VIEW: f"make the view outside torch.no_grad(), or {clone}",
        FUNCTION_VIEW: f"{clone}, or return a new tensor from the Function's forward (x.clone()), not a view",
        INFERENCE: f"make the tensor under torch.no_grad() instead of torch.inference_mode(), or {clone}",
        INFERENCE_VIEW: "make the view and the write both inside torch.inference_mode() or both outside it, "
        f"or {clone}",
        RESIZED: "build a new tensor of the new size (torch.cat, F.pad, new_zeros) instead of resizing this one",
        DETACHED_VIEW: "use the out-of-place x = x.detach() instead of x.detach_()",
        OUT_ARGUMENT: "drop out= (y = torch.mul(a, b)), or compute under torch.no_grad() if no gradient is needed",
    }
    fixes[VIEW_OF_LEAF] = fixes[LEAF]
    location = finding.write.location if finding.write else None
    fix = fixes.get(finding.node, clone)
    if location is not None and location.inplace_class:
        return f"build that {location.inplace_class} without inplace=True, or {fix}"
    return fix


def _fix_of_the_write(finding: Finding) -> str:
    if finding.check == AUTOCAST_STALE:
        return (
            "end the autocast region before optimizer.step(): wrap only the forward and the loss in "
            "torch.autocast(...), with backward and the step after it (as PyTorch's AMP examples do), "
            "or build it with cache_enabled=False"
        )
    if finding.check == REFUSED:
        return _refusal_fix(finding)
    if finding.check == GRAD_HOOK:
        return _hook_fix(finding)
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


def _hook_fix(finding: Finding) -> str:
    """Return a new gradient from the hook: PyTorch uses it in place of the one it handed."""
    write = finding.write
    method = _method(write.name) if write is not None else None
    code = write.location.code if write is not None and write.location else ""
    called = re.search(rf"(\w[\w.\[\]]*)\.{method}\(", code) if method else None
    returned = "the new gradients (a tuple)" if "module" in finding.node else "the new gradient"
    if called and method:
        name = called.group(1)
        return (
            f"return {returned} from the hook instead of writing its argument: {name}.{method[:-1]}(...) "
            f"(a new tensor), not {name}.{method}(...); PyTorch uses what a hook returns in place of what it handed"
        )
    return (
        f"return {returned} from the hook, made out of place, instead of writing its argument; PyTorch uses "
        "what a hook returns in place of what it handed"
    )
