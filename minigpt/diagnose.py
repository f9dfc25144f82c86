"""Precise in-place diagnosis: which op overwrote which saved tensor, at which line.

Two tools, the two ends of the diagnostic ladder:

``find_inplace_calls(paths_or_module)``
    The "grep" step done mechanically: parse Python source with ``ast`` and list every
    *candidate* in-place write (``h.add_(...)``, ``F.relu_(x)``, ``x += y``, ``x.data...``,
    ``inplace=True``, ``x[...] = ...``). It cannot tell a harmless write from a harmful one.

``diagnose(target, *args, **kwargs)``
    Run ``target(*args, **kwargs)`` once (a model and its batch, or any callable returning a
    loss) and report every in-place write that overwrote a tensor some backward node saved.
    No backward pass and no anomaly mode are needed. During the forward:

    * a ``TorchDispatchMode`` logs every aten op: its name, the user source line, which memory
      it writes (mutating ops, read from the op schema) and the tensors it reads and returns;
    * a ``saved_tensors_hooks`` pack hook logs every tensor saved for backward: the version at
      save time, when it was saved and a copy of its values.

    Afterwards the graph is walked from the outputs (``next_functions``); every saved slot of
    every node (``_raw_saved_*``, and tensors a custom Function keeps on its ctx) is matched
    against the writes logged after it was saved, by memory (same storage, overlapping bytes).
    Matching memory instead of trusting the version counter also finds what the counter cannot
    see: writes through ``.data``, tensors saved under someone else's ``saved_tensors_hooks``
    (PyTorch then skips its check) and ``ctx.x`` kept outside ``save_for_backward``. Comparing
    the values with the copy finds writes made behind PyTorch's back (e.g. through numpy).

Our own pack hook switches PyTorch's version check off for the tensors it packs, so its unpack
hook performs the same check itself: a backward after a diagnosis still raises where it would
have raised without one, and the forward's results are untouched.
"""

import ast
import inspect
import linecache
import os
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import torch
from torch.autograd.function import BackwardCFunction
from torch.autograd.graph import saved_tensors_hooks
from torch.utils._python_dispatch import TorchDispatchMode

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_THIS_FILE = os.path.abspath(__file__)

# How PyTorch's own version check treats a saved slot that was overwritten.
RAISES = "backward raises PyTorch's version-counter RuntimeError"
COUNTER_BLIND = "silent: the version counter did not see the write (e.g. a write through .data)"
HOOKS_SKIP_CHECK = "silent: saved through saved_tensors_hooks, so PyTorch skips the version check"
CTX_UNCHECKED = "silent: kept as a ctx attribute, not with save_for_backward, so never checked"
UNSEEN_WRITE = "silent: the values changed with no write PyTorch could see (e.g. through numpy)"


# --------------------------------------------------------------------------------------------
# Where in the user's code something happened


class Location(NamedTuple):
    path: str
    line: int
    module: str  # the innermost nn.Module running at the time ("" outside any module)

    @property
    def code(self):
        return linecache.getline(self.path, self.line).strip()

    def __str__(self):
        where = f"{_display_path(self.path)}:{self.line}"
        if self.module:
            where += f" in {self.module}"
        return f"{where}: {self.code}"


def _display_path(path):
    """Relative to the working directory when below it, else as it is."""
    absolute, here = os.path.abspath(path), os.getcwd()
    return os.path.relpath(absolute, here) if absolute.startswith(here + os.sep) else path


_INTERNAL = {}  # filename -> inside torch or this module (cached: asked at every op)


def _is_internal(filename):
    if filename not in _INTERNAL:
        _INTERNAL[filename] = filename.startswith(_TORCH_DIR) or os.path.abspath(filename) == _THIS_FILE
    return _INTERNAL[filename]


def _user_frame():
    """(file, line) of the innermost Python frame outside torch and outside this module."""
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("<unknown>", 0)


# --------------------------------------------------------------------------------------------
# Memory: which bytes of which storage a tensor covers


def _tensors(value):
    """Every tensor in value (nested tuples, lists and dicts), in order."""
    if isinstance(value, torch.Tensor):
        return [value]
    found = []
    for item in value.values() if isinstance(value, dict) else value if isinstance(value, (tuple, list)) else ():
        if isinstance(item, torch.Tensor):
            found.append(item)
        elif isinstance(item, (tuple, list, dict)):
            found.extend(_tensors(item))
    return found


@dataclass(frozen=True)
class Memory:
    """The bytes a tensor covers: storage address, byte offset, shape and byte strides."""

    storage: int
    offset: int
    shape: tuple
    strides: tuple
    itemsize: int

    @classmethod
    def of(cls, t):
        """None for tensors without memory of their own (empty, sparse, meta...)."""
        try:
            if t.numel() == 0 or t.layout != torch.strided:
                return None
            size = t.element_size()
            return cls(t.untyped_storage().data_ptr(), t.storage_offset() * size, tuple(t.shape),
                       tuple(s * size for s in t.stride()), size)
        except (RuntimeError, NotImplementedError):
            return None

    @property
    def end(self):
        return self.offset + sum((n - 1) * s for n, s in zip(self.shape, self.strides)) + self.itemsize

    def overlaps(self, other):
        if self.storage != other.storage or self.end <= other.offset or other.end <= self.offset:
            return False
        if self == other:
            return True
        # The byte ranges interleave (e.g. q and k, two column blocks of one qkv output): mark
        # this tensor's bytes in a scratch buffer and look whether the other one touches any.
        start = min(self.offset, other.offset)
        scratch = torch.zeros(max(self.end, other.end) - start, dtype=torch.bool)
        self._bytes(scratch, start).fill_(True)
        return bool(other._bytes(scratch, start).any())

    def _bytes(self, scratch, start):
        return scratch.as_strided(self.shape + (self.itemsize,), self.strides + (1,), self.offset - start)


def _alias(t):
    """Identifies a tensor by its memory and layout, whichever Python object wraps it."""
    try:
        return t.data_ptr(), t.shape, t.stride()
    except (RuntimeError, NotImplementedError):
        return None


def _same_values(a, b):
    if torch.equal(a, b):
        return True
    if a.is_floating_point() or a.is_complex():  # NaN != NaN: compare NaN positions apart
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return False


# --------------------------------------------------------------------------------------------
# Recording one forward


@dataclass
class Op:
    """One aten op of the forward, as the dispatch mode saw it."""

    index: int
    name: str  # e.g. "aten.add_.Tensor"
    sequence_nr: int  # autograd's next sequence number: ties backward nodes to the op creating them
    writes: list  # Memory the op writes (empty for out-of-place ops)
    # Recorded only where needed (see _Recorder.__torch_dispatch__):
    location: Location = None
    inputs: dict = field(default_factory=dict)  # alias -> version, for the tensors the op reads
    outputs: dict = field(default_factory=dict)  # alias -> version, once the op has returned


@dataclass
class SavedRecord:
    """What our pack hook keeps for one saved tensor."""

    tensor: torch.Tensor  # a detached alias: same memory and version counter, no reference cycle
    version: int  # tensor._version at save time (what PyTorch's check compares with)
    location: Location
    after_op: int = None  # the op that saved it is ops[after_op - 1]: writes from ops[after_op] on count
    values: torch.Tensor = None  # a copy of the values as that op left them


class _Recorder(TorchDispatchMode):
    """Logs ops (dispatch mode), saved tensors (pack hook) and the running module (module hooks)."""

    def __init__(self, module_names):
        super().__init__()
        self.ops = []
        self.module_names = module_names
        self.modules = []  # stack of running module names
        self.unresolved = None  # the last op, whose outputs' versions are read at the next op
        self.unsettled = []  # saved inputs of the op about to run: copied once it has run
        self.hooks = (self.pack, self.unpack)  # one object each, to recognise them on the hooks stack

    # ---- the dispatch mode: every aten op

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        self.resolve_outputs()
        op = Op(len(self.ops), str(func), torch._C._autograd._get_sequence_nr(),
                writes=[m for t in _written(func, args, kwargs) if (m := Memory.of(t)) is not None])
        # The line, and the versions of what the op reads and returns, are needed for writes and
        # to place tensors saved outside our pack hook. Elsewhere they are skipped, for speed.
        detailed = op.writes or self.others_may_save()
        if detailed:
            op.location = self.location()
            op.inputs = {a: t._version for t in _tensors((args, kwargs)) if (a := _alias(t)) is not None}
        self.ops.append(op)
        out = func(*args, **kwargs)
        self.settle_inputs()
        if detailed:  # in-place ops bump the version counter only after this returns: read it later
            self.unresolved = (op, list(_tensors(out)))
        return out

    def others_may_save(self):
        """Can this op's node save tensors our pack hook does not see?

        Yes under someone else's saved_tensors_hooks (the innermost hooks win), and inside a
        custom Function's forward (it runs with grad mode off), where ctx attributes are set.
        """
        hooks = torch._C._autograd._top_saved_tensors_default_hooks(False)
        return not torch.is_grad_enabled() or hooks is None or hooks[0] is not self.hooks[0]

    def resolve_outputs(self):
        if self.unresolved is not None:
            op, outputs = self.unresolved
            op.outputs = {a: t._version for t in outputs if (a := _alias(t)) is not None}
            self.unresolved = None

    def settle_inputs(self):
        for record in self.unsettled:
            self.settle(record)
        self.unsettled = []

    def location(self):
        path, line = _user_frame()
        return Location(path, line, self.modules[-1] if self.modules else "")

    # ---- the saved-tensor hooks: every tensor saved for backward

    def pack(self, tensor):
        with torch._C._DisableTorchDispatch():  # our own detach and copy are not the model's ops
            record = SavedRecord(tensor.detach(), tensor._version, self.location())
        # A node saves its inputs before its op runs and its results after. What counts as "the
        # saved values" is what that op left: BatchNorm, e.g., updates the running stats it saves.
        if self.ops and torch._C._autograd._get_sequence_nr() == self.ops[-1].sequence_nr:
            self.settle(record)  # no node was created since the last op: a result of that op
        else:
            self.unsettled.append(record)  # a new node: an input of the op about to run
        return record

    def settle(self, record):
        record.after_op = len(self.ops)
        with torch._C._DisableTorchDispatch():
            record.values = record.tensor.clone()

    @staticmethod
    def unpack(record):
        # With hooks set PyTorch does not check versions (facts section 3): check like it does.
        if record.tensor._version != record.version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{record.tensor.type()} {list(record.tensor.shape)}] is at "
                f"version {record.tensor._version}; expected version {record.version} instead "
                "(checked by minigpt.diagnose's unpack hook)")
        return record.tensor

    # ---- module hooks: which module is running

    def enter_module(self, module, args):
        self.modules.append(self.module_names.get(id(module), type(module).__name__))

    def leave_module(self, module, args, output):
        if self.modules:
            self.modules.pop()


def _written(func, args, kwargs):
    """The tensor arguments the op's schema marks as written, ``Tensor(a!)``."""
    schema = func._schema
    if not schema.is_mutable:
        return
    for i, argument in enumerate(schema.arguments):
        if argument.alias_info is not None and argument.alias_info.is_write:
            value = args[i] if i < len(args) else kwargs.get(argument.name)
            yield from _tensors(value)


def _module_names(target):
    if not isinstance(target, torch.nn.Module):
        return {}
    names = {id(m): name for name, m in target.named_modules()}
    names[id(target)] = type(target).__name__
    return names


# --------------------------------------------------------------------------------------------
# Walking the graph: every saved slot of every node


@dataclass
class SavedSlot:
    node: str  # e.g. "NativeLayerNormBackward0"
    attribute: str  # e.g. "_saved_input", "saved_tensors[0]" or "ctx.x"
    tensor: torch.Tensor
    kind: str  # "ours" (our pack hook), "hooks" (someone else's hooks), "plain" (no hooks), "ctx"
    record: SavedRecord = None  # when kind == "ours"
    sequence_nr: int = None


_RAW_NAMES = {}  # node type -> its _raw_saved_* attribute names (dir() is slow)


def _raw_names(node):
    kind = type(node)
    if kind not in _RAW_NAMES:
        _RAW_NAMES[kind] = [n for n in dir(node) if n.startswith("_raw_saved_")]
    return _RAW_NAMES[kind]


def _nodes(roots):
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


def _saved_slots(node):
    custom = isinstance(node, BackwardCFunction)
    for raw_name in _raw_names(node):
        raws = getattr(node, raw_name)
        checked_name = "saved_tensors" if custom else raw_name[len("_raw"):]
        many = isinstance(raws, (tuple, list))
        for i, raw in enumerate(raws if many else [raws]):
            attribute = f"{checked_name}[{i}]" if many else checked_name
            packed = raw.data  # what was packed: our record, a foreign hook's object, or the tensor
            if isinstance(packed, SavedRecord):
                yield SavedSlot(node.name(), attribute, packed.tensor, "ours", packed)
                continue
            if raw.unpack_hook is None:  # no hooks: .data read it without the version check
                tensor, kind = packed, "plain"
            elif isinstance(packed, torch.Tensor):  # an identity-like foreign hook kept the tensor
                tensor, kind = packed, "hooks"
            else:  # a foreign hook packed something else: follow its memory only if it kept it
                value = getattr(node, checked_name)  # runs the foreign unpack hook
                tensor, kind = (value[i] if many else value), "hooks"
                kept = {t.untyped_storage().data_ptr() for t in _tensors(packed)}
                if not isinstance(tensor, torch.Tensor) or tensor.untyped_storage().data_ptr() not in kept:
                    continue  # a copy made at unpack time: its memory says nothing about the forward
            if isinstance(tensor, torch.Tensor):
                yield SavedSlot(node.name(), attribute, tensor, kind, sequence_nr=node._sequence_nr())
    if custom:  # a custom Function's backward node is its ctx: tensors kept as ctx.<name>
        for name, value in vars(node).items():
            if isinstance(value, torch.Tensor):
                yield SavedSlot(node.name(), f"ctx.{name}", value, "ctx", sequence_nr=node._sequence_nr())


# --------------------------------------------------------------------------------------------
# Matching saved slots with the writes that came after them


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
            where = ", ".join(f"{_display_path(w.location.path)}:{w.location.line}" for w in self.later_writes)
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
    alias = _alias(slot.tensor)
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
    if saved_version is not None and slot.tensor._version == saved_version:
        return COUNTER_BLIND
    return RAISES


def _match(slot, ops, writing_ops):
    """The Finding for one saved slot, or None when nothing overwrote it."""
    after_op, saved_version, saved_at = _when_saved(slot, ops)
    memory = Memory.of(slot.tensor)
    if memory is None:
        return None
    later = [op for op in writing_ops if op.index >= after_op]
    touching = [op for op in later if any(memory.overlaps(w) for w in op.writes)]
    stale = saved_version is not None and slot.tensor._version != saved_version
    found = lambda writes, check, touched=True: Finding(
        slot.node, slot.attribute, saved_at, saved_version, slot.tensor._version,
        writes[0] if writes else None, writes[1:], check, touched)
    if touching:  # the saved bytes were written
        return found(touching, _check(slot, saved_version))
    if stale and slot.kind in ("ours", "plain"):  # PyTorch's check will raise all the same
        same_storage = [op for op in later if any(w.storage == memory.storage for w in op.writes)]
        return found(same_storage, RAISES, touched=False)
    if slot.record is not None and not _same_values(slot.record.values, slot.tensor):
        return found([], UNSEEN_WRITE)  # written where neither the counter nor the dispatcher looks
    return None


# --------------------------------------------------------------------------------------------
# The diagnosis


@dataclass
class Report:
    findings: list
    ops: int  # aten ops in the forward
    writes: int  # of which in-place writes
    saved: int  # saved slots inspected
    nodes: int  # backward nodes walked
    unreached: list = field(default_factory=list)  # parameters requiring grad the graph never reaches

    def summary(self):
        n = len(self.findings)
        silent = sum(f.silent for f in self.findings)
        return (f"{n} finding{'' if n == 1 else 's'}: {n - silent} caught by PyTorch's version check "
                f"at backward, {silent} silent")

    def __str__(self):
        lines = [f"one forward: {self.ops} aten ops, {self.writes} of them in-place writes; "
                 f"{self.saved} saved tensors in {self.nodes} backward nodes"]
        for i, finding in enumerate(self.findings, 1):
            lines.append(f"\n[{i}] {finding.describe()}")
        if self.unreached:
            shown = ", ".join(self.unreached[:4]) + (", ..." if len(self.unreached) > 4 else "")
            lines.append(f"\nnote: {len(self.unreached)} parameters that require grad are not in the "
                         f"backward graph and will get no gradient ({shown}); something cut them off "
                         "(a write through .data, a detach, an unused module)")
        lines.append("\n" + self.summary())
        return "\n".join(lines)


def diagnose(target, *args, **kwargs):
    """Run ``target(*args, **kwargs)`` once and report the in-place writes over saved tensors.

    ``target`` is a model (called with the batch) or any callable; every tensor it returns
    (a loss, ``(logits, loss)``, ...) is a root of the backward graph that is inspected.
    Returns a ``Report``; the outputs themselves are dropped with the graph.
    """
    recorder = _Recorder(_module_names(target))
    pre = torch.nn.modules.module.register_module_forward_pre_hook(recorder.enter_module)
    post = torch.nn.modules.module.register_module_forward_hook(recorder.leave_module, always_call=True)
    try:
        with saved_tensors_hooks(*recorder.hooks), recorder:
            outputs = target(*args, **kwargs)
            recorder.resolve_outputs()
            recorder.settle_inputs()
    finally:
        pre.remove()
        post.remove()
    nodes = _nodes(t.grad_fn for t in _tensors(outputs) if t.grad_fn is not None)
    slots = [slot for node in nodes for slot in _saved_slots(node)]
    writing_ops = [op for op in recorder.ops if op.writes]
    findings = [f for f in (_match(slot, recorder.ops, writing_ops) for slot in slots) if f is not None]
    findings.sort(key=lambda f: (f.write.index if f.write else len(recorder.ops), f.node, f.attribute))
    return Report(findings, len(recorder.ops), len(writing_ops), len(slots), len(nodes),
                  _unreached(target, nodes))


def _unreached(target, nodes):
    """Names of the target's parameters that require grad but feed no node of the graph."""
    if not isinstance(target, torch.nn.Module):
        return []
    reached = {id(node.variable) for node in nodes if hasattr(node, "variable")}  # AccumulateGrad
    return [name for name, p in target.named_parameters() if p.requires_grad and id(p) not in reached]


# --------------------------------------------------------------------------------------------
# The static scanner


@dataclass(frozen=True)
class Candidate:
    path: str
    line: int
    kind: str
    code: str

    def __str__(self):
        return f"{_display_path(self.path)}:{self.line}: {self.kind}: {self.code}"


def _is_inplace_name(name):
    return len(name) > 1 and name.endswith("_") and not name.endswith("__")  # add_, not __init__


def _is_data(node):
    return isinstance(node, ast.Attribute) and node.attr == "data"


class _Scanner(ast.NodeVisitor):
    def __init__(self, path, lines):
        self.path, self.lines, self.found = path, lines, []

    def add(self, node, kind):
        self.found.append(Candidate(self.path, node.lineno, kind, self.lines[node.lineno - 1].strip()))

    def visit_Call(self, node):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if _is_inplace_name(name):
            through_data = isinstance(func, ast.Attribute) and _is_data(func.value)
            self.add(node, f"write through .data ({name})" if through_data else f"in-place call {name}")
        for keyword in node.keywords:
            if keyword.arg == "inplace" and not (isinstance(keyword.value, ast.Constant)
                                                 and keyword.value.value is False):
                self.add(node, "inplace= argument")
            elif keyword.arg == "out":
                self.add(node, "out= argument")
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self.target(node.target, augmented=True)
        self.generic_visit(node)

    def visit_Assign(self, node):
        for target in node.targets:
            self.target(target, augmented=False)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.target(node.target, augmented=False)
        self.generic_visit(node)

    def target(self, target, augmented):
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.target(element, augmented)
        elif _is_data(target) or (isinstance(target, ast.Subscript) and _is_data(target.value)):
            self.add(target, "write through .data")
        elif isinstance(target, ast.Subscript):
            key = target.slice
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):  # d["key"] = ...
                self.add(target, "index assignment")
        elif augmented:
            self.add(target, "augmented assignment")


def _source_files(paths_or_module):
    items = paths_or_module if isinstance(paths_or_module, (list, tuple, set)) else [paths_or_module]
    for item in items:
        if inspect.ismodule(item):
            yield Path(inspect.getsourcefile(item))
        elif Path(item).is_dir():
            yield from sorted(Path(item).rglob("*.py"))
        elif Path(item).is_file():
            yield Path(item)
        else:
            raise FileNotFoundError(f"no such file or directory: {item}")


def find_inplace_calls(paths_or_module):
    """Candidate in-place writes in Python source (files, directories or modules), by line.

    Lists calls of ``_``-suffixed methods and functions, augmented assignments, writes through
    ``.data``, ``inplace=`` and ``out=`` arguments and index assignments. It reads source only,
    so it cannot know types or whether a backward node saved the overwritten tensor: it lists
    safe and harmful writes alike (use ``diagnose`` to tell them apart).
    """
    found = []
    for path in _source_files(paths_or_module):
        source = path.read_text(encoding="utf-8")
        scanner = _Scanner(str(path), source.splitlines())
        scanner.visit(ast.parse(source, filename=str(path)))
        found.extend(scanner.found)
    return sorted(set(found), key=lambda c: (c.path, c.line, c.kind))
