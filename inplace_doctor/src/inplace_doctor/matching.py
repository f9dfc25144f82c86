"""Matching saved slots with the writes logged after them: what was overwritten, and who notices."""

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import torch

from . import torch_private
from .digest import changed, digest
from .findings import COUNTER_BLIND, CTX_UNCHECKED, DETACHED, HOOKS_SKIP_CHECK, RAISES, UNSEEN_WRITE, Finding
from .graph import SavedSlot
from .location import Location
from .memory import Memory, alias_of
from .recorder import Op, Recorder


class WriteLog:
    """The recorder's writes, indexed by storage, for matching many slots at once."""

    def __init__(self, recorder: Recorder):
        self.ops = recorder.ops
        self.numpy_views = recorder.numpy_views
        self.by_storage: dict[tuple, list[tuple[Op, Memory]]] = defaultdict(list)
        self.detaches: list[Op] = []
        self.writing = 0
        for op in recorder.ops:
            if op.writes:
                self.writing += 1
                for memory in op.writes:
                    self.by_storage[memory.key].append((op, memory))
            elif op.target is not None:
                self.detaches.append(op)

    def writes_over(self, memory: Memory, after: int) -> tuple[list[Op], list[Op]]:
        """(ops writing the bytes of memory, ops writing only other bytes of its storage), from
        ops[after] on, each op once, in order."""
        touching: list[Op] = []
        elsewhere: list[Op] = []
        for op, written in self.by_storage.get(memory.key, ()):
            if op.index < after:
                continue
            if memory.overlaps(written):
                if not touching or touching[-1] is not op:
                    touching.append(op)
            elif not elsewhere or elsewhere[-1] is not op:
                elsewhere.append(op)
        return touching, [op for op in elsewhere if op not in touching]


def _when_saved(slot: SavedSlot, ops: list[Op], next_index: int) -> tuple[int, int | None, Location | None]:
    """(index of the first op whose writes count, version at save time, where it was saved).

    Slots from our pack hook know all three. For the others (foreign hooks, ctx attributes) the
    node's sequence number names the op that created it, and the version is the one that op
    read (a saved input) or left (a saved result). None where it cannot be told. Either way the
    op that saved a tensor does not count as overwriting it.
    """
    if slot.record is not None:
        after = slot.record.after_op if slot.record.after_op is not None else next_index
        return after, slot.record.version, slot.record.location
    sequence_nr = slot.sequence_nr if slot.sequence_nr is not None else -1
    if not (creating := [op for op in ops if op.sequence_nr == sequence_nr + 1]):
        creating = [op for op in ops if op.sequence_nr > sequence_nr][:1]
    if not creating:
        return next_index, None, None
    alias = alias_of(slot.tensor)
    for op in reversed(creating):  # saved as a result: after the op that returned it
        if alias in op.outputs:
            return op.index + 1, op.outputs[alias], op.location
    for op in creating:  # saved as an input, with the version the op read
        if alias in op.inputs:
            return op.index + 1, op.inputs[alias], op.location
    return creating[0].index + 1, None, creating[0].location


def _check(slot: SavedSlot, saved_version: int | None) -> str:
    if slot.kind == "ctx":
        return CTX_UNCHECKED
    if slot.kind == "hooks":
        return HOOKS_SKIP_CHECK
    if saved_version is not None and torch_private.version(slot.tensor) == saved_version:
        return COUNTER_BLIND
    return RAISES


def match(slot: SavedSlot, log: WriteLog, next_index: int) -> Finding | None:
    """The Finding for one saved slot, or None when nothing overwrote it. Call it with dispatch
    disabled (``torch_private.dispatch_disabled``): its digest is not the program's op."""
    return match_all([slot], log, next_index)[0]


def match_all(slots: Sequence[SavedSlot], log: WriteLog, next_index: int) -> list[Finding | None]:
    """``match`` for many slots: the digests of what backward will read are taken for all of them
    first and compared in one go (one synchronisation per device, not one per slot)."""
    results: list[Finding | None] = []
    pending: list[tuple[int, SavedSlot, int, int | None, Location | None, torch.Tensor, bool]] = []
    for slot in slots:
        after_op, saved_version, saved_at = _when_saved(slot, log.ops, next_index)
        found = _match_seen(slot, log, after_op, saved_version, saved_at)
        results.append(found)
        record = slot.record
        if record is None or record.digest is None or record.memory is None:
            continue
        if found is None:
            read = record.read_by_backward()
            replaced = read is not record.tensor and Memory.of(read) != record.memory
            pending.append((len(results) - 1, slot, after_op, saved_version, saved_at, read, replaced))
        elif found.check == COUNTER_BLIND:  # no check will raise: only changed values make it a bug
            pending.append((len(results) - 1, slot, after_op, saved_version, saved_at, record.tensor, False))
    if pending:
        now = [digest(read) for _, _, _, _, _, read, _ in pending]
        differs = changed([(item[1].record.digest, d) for item, d in zip(pending, now, strict=False)])  # type: ignore[union-attr]
        for (i, slot, after_op, saved_version, saved_at, _, replaced), different in zip(pending, differs, strict=False):
            if results[i] is not None:
                if not different:  # the same values written back (DDP's broadcast of equal buffers)
                    results[i] = None
            elif different or replaced:  # written where neither the counter nor the dispatcher looks
                results[i] = _unseen(slot, log, after_op, saved_version, saved_at, replaced)
    return results


def _finding(
    slot: SavedSlot, saved_at: Location | None, saved_version: int | None, writes: list[Op], check: str, **details: Any
) -> Finding:
    return Finding(
        slot.node,
        slot.attribute,
        saved_at,
        saved_version,
        torch_private.version(slot.tensor),
        writes[0] if writes else None,
        writes[1:],
        check,
        order=-1 if slot.sequence_nr is None else slot.sequence_nr,
        **details,
    )


def _match_seen(
    slot: SavedSlot, log: WriteLog, after_op: int, saved_version: int | None, saved_at: Location | None
) -> Finding | None:
    """The finding of a write PyTorch could see (an op, a detach), or None."""
    record = slot.record
    memory = record.memory if record is not None and record.memory is not None else Memory.of(slot.tensor)
    if memory is None:
        return None
    touching, elsewhere = log.writes_over(memory, after_op)
    stale = saved_version is not None and torch_private.version(slot.tensor) != saved_version
    if touching:  # the saved bytes were written
        return _finding(slot, saved_at, saved_version, touching, _check(slot, saved_version))
    if stale and slot.kind in ("ours", "plain"):  # PyTorch's check will raise all the same
        # "the saved values are intact" only where they are (a sibling view's write), never for a
        # write no op showed (made where nothing was recorded) that changed them
        intact = record is None or (
            record.digest is not None and not changed([(record.digest, digest(record.tensor))])[0]
        )
        return _finding(slot, saved_at, saved_version, elsewhere, RAISES, touched=not intact)
    if record is None:
        return None
    read = record.read_by_backward()
    if record.had_grad_fn and read is not record.tensor and read.grad_fn is None:
        detaches = [op for op in log.detaches if op.index >= after_op and op.target() is read]
        return _finding(slot, saved_at, saved_version, detaches, DETACHED)
    return None


def _unseen(
    slot: SavedSlot, log: WriteLog, after_op: int, saved_version: int | None, saved_at: Location | None, replaced: bool
) -> Finding:
    record = slot.record
    assert record is not None and record.memory is not None
    memory = record.memory
    views = [op for op in log.numpy_views if any(memory.overlaps(m) for m in op.writes)]
    since = [op for op in views if op.index >= after_op] or views
    through = since[-1].location.site if since and since[-1].location is not None else None
    changed_after = record.changed_after
    return _finding(
        slot, saved_at, saved_version, [], UNSEEN_WRITE, through=through, replaced=replaced, changed_after=changed_after
    )
