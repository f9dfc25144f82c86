"""Matching saved slots with the writes logged after them: what was overwritten, and who notices."""

from dataclasses import dataclass

from . import torch_private
from .location import Location, display_path
from .memory import Memory, alias_of, same_values
from .recorder import Op

# How PyTorch's own version check treats a saved slot that was overwritten.
RAISES = "backward raises PyTorch's version-counter RuntimeError"
COUNTER_BLIND = "silent: the version counter did not see the write (e.g. a write through .data)"
HOOKS_SKIP_CHECK = "silent: saved through saved_tensors_hooks, so PyTorch skips the version check"
CTX_UNCHECKED = "silent: kept as a ctx attribute, not with save_for_backward, so never checked"
UNSEEN_WRITE = "silent: the values changed with no write PyTorch could see (e.g. through numpy)"


@dataclass
class Finding:
    node: str
    attribute: str
    saved_at: Location
    saved_version: int  # None when it cannot be told
    current_version: int
    write: Op  # the first write after the save (None: no write PyTorch could see)
    later_writes: list  # further writes after that one
    check: str  # how PyTorch's version check treats it (RAISES, COUNTER_BLIND, ...)
    touched: bool = True  # False: the write hit other bytes of the same storage (a sibling view)

    @property
    def silent(self):
        return self.check != RAISES

    def describe(self):
        op = self.write.name if self.write else "an unseen write"
        lines = [f"{op} overwrote {self.node}.{self.attribute}"]
        if self.write:
            lines.append(f"  written at: {self.write.location}")
        lines.append(f"  saved at:   {self.saved_at or '?'}")
        saved = "?" if self.saved_version is None else self.saved_version
        lines.append(f"  version:    saved at {saved}, now {self.current_version}")
        lines.append(f"  check:      {self.check}")
        if not self.touched:
            lines.append("  note:       the write hit other bytes of the same storage: the saved values are "
                         "intact, but views share one version counter")
        if self.later_writes:
            where = ", ".join(f"{display_path(w.location.path)}:{w.location.line}" for w in self.later_writes)
            lines.append(f"  then written {len(self.later_writes)} more time(s): {where}")
        return "\n".join(lines)


def _when_saved(slot, ops):
    """(index of the first op whose writes count, version at save time, where it was saved).

    Slots from our pack hook know all three. For the others (foreign hooks, ctx attributes) the
    node's sequence number names the op that created it, and the version is the one that op
    read (a saved input) or left (a saved result). None where it cannot be told. Either way the
    op that saved a tensor does not count as overwriting it.
    """
    if slot.record is not None:
        return slot.record.after_op, slot.record.version, slot.record.location
    creating = [op for op in ops if op.sequence_nr == slot.sequence_nr + 1]
    if not creating:
        creating = [op for op in ops if op.sequence_nr > slot.sequence_nr][:1]
    if not creating:
        return len(ops), None, None
    alias = alias_of(slot.tensor)
    for op in reversed(creating):  # saved as a result: after the op that returned it
        if alias in op.outputs:
            return op.index + 1, op.outputs[alias], op.location
    for op in creating:  # saved as an input, with the version the op read
        if alias in op.inputs:
            return op.index + 1, op.inputs[alias], op.location
    return creating[0].index + 1, None, creating[0].location


def _check(slot, saved_version):
    if slot.kind == "ctx":
        return CTX_UNCHECKED
    if slot.kind == "hooks":
        return HOOKS_SKIP_CHECK
    if saved_version is not None and torch_private.version(slot.tensor) == saved_version:
        return COUNTER_BLIND
    return RAISES


def match(slot, ops, writing_ops):
    """The Finding for one saved slot, or None when nothing overwrote it."""
    after_op, saved_version, saved_at = _when_saved(slot, ops)
    memory = Memory.of(slot.tensor)
    if memory is None:
        return None
    current_version = torch_private.version(slot.tensor)
    later = [op for op in writing_ops if op.index >= after_op]
    touching = [op for op in later if any(memory.overlaps(w) for w in op.writes)]
    stale = saved_version is not None and current_version != saved_version
    found = lambda writes, check, touched=True: Finding(
        slot.node, slot.attribute, saved_at, saved_version, current_version,
        writes[0] if writes else None, writes[1:], check, touched)
    if touching:  # the saved bytes were written
        return found(touching, _check(slot, saved_version))
    if stale and slot.kind in ("ours", "plain"):  # PyTorch's check will raise all the same
        same_storage = [op for op in later if any(w.storage == memory.storage for w in op.writes)]
        return found(same_storage, RAISES, touched=False)
    if slot.record is not None and not same_values(slot.record.values, slot.tensor):
        return found([], UNSEEN_WRITE)  # written where neither the counter nor the dispatcher looks
    return None
