"""Recording one forward: every aten op, every tensor saved for backward, the running module.

The recorder is at once a dispatch mode (it sees every aten op), the pack and unpack hooks of
``saved_tensors_hooks`` (it sees every tensor saved for backward) and a pair of global module
hooks (it knows which nn.Module is running).

Our pack hook switches PyTorch's version check off for the tensors it packs, so our unpack hook
performs the same check itself: a backward after a diagnosis still raises where it would have
raised without one.
"""

from dataclasses import dataclass, field

import torch

from . import torch_private
from .location import Location, user_frame
from .memory import Memory, alias_of, tensors_in


@dataclass
class Op:
    """One aten op of the forward, as the dispatch mode saw it."""

    index: int
    name: str  # e.g. "aten.add_.Tensor"
    sequence_nr: int  # autograd's next sequence number: ties backward nodes to the op creating them
    writes: list  # Memory the op writes (empty for out-of-place ops)
    # Recorded only where needed (see Recorder.__torch_dispatch__):
    location: Location = None
    inputs: dict = field(default_factory=dict)  # alias -> version, for the tensors the op reads
    outputs: dict = field(default_factory=dict)  # alias -> version, once the op has returned


@dataclass
class SavedRecord:
    """What our pack hook keeps for one saved tensor."""

    tensor: torch.Tensor  # a detached alias: same memory and version counter, no reference cycle
    version: int  # the version at save time (what PyTorch's check compares with)
    location: Location
    after_op: int = None  # the op that saved it is ops[after_op - 1]: writes from ops[after_op] on count
    values: torch.Tensor = None  # a copy of the values as that op left them


class Recorder(torch_private.DispatchMode):
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
        op = Op(len(self.ops), str(func), torch_private.sequence_nr(),
                writes=[m for t in _written(func, args, kwargs) if (m := Memory.of(t)) is not None])
        # The line, and the versions of what the op reads and returns, are needed for writes and
        # to place tensors saved outside our pack hook. Elsewhere they are skipped, for speed.
        detailed = op.writes or self.others_may_save()
        if detailed:
            op.location = self.location()
            op.inputs = {a: torch_private.version(t) for t in tensors_in((args, kwargs))
                         if (a := alias_of(t)) is not None}
        self.ops.append(op)
        out = func(*args, **kwargs)
        self.settle_inputs()
        if detailed:  # in-place ops bump the version counter only after this returns: read it later
            self.unresolved = (op, list(tensors_in(out)))
        return out

    def others_may_save(self):
        """Can this op's node save tensors our pack hook does not see?

        Yes under someone else's saved_tensors_hooks (the innermost hooks win), and inside a
        custom Function's forward (it runs with grad mode off), where ctx attributes are set.
        """
        hooks = torch_private.innermost_saved_tensors_hooks()
        return not torch.is_grad_enabled() or hooks is None or hooks[0] is not self.hooks[0]

    def resolve_outputs(self):
        if self.unresolved is not None:
            op, outputs = self.unresolved
            op.outputs = {a: torch_private.version(t) for t in outputs if (a := alias_of(t)) is not None}
            self.unresolved = None

    def settle_inputs(self):
        for record in self.unsettled:
            self.settle(record)
        self.unsettled = []

    def location(self):
        path, line = user_frame()
        return Location(path, line, self.modules[-1] if self.modules else "")

    # ---- the saved-tensor hooks: every tensor saved for backward

    def pack(self, tensor):
        with torch_private.dispatch_disabled():  # our own detach and copy are not the model's ops
            record = SavedRecord(tensor.detach(), torch_private.version(tensor), self.location())
        # A node saves its inputs before its op runs and its results after. What counts as "the
        # saved values" is what that op left: BatchNorm, e.g., updates the running stats it saves.
        if self.ops and torch_private.sequence_nr() == self.ops[-1].sequence_nr:
            self.settle(record)  # no node was created since the last op: a result of that op
        else:
            self.unsettled.append(record)  # a new node: an input of the op about to run
        return record

    def settle(self, record):
        record.after_op = len(self.ops)
        with torch_private.dispatch_disabled():
            record.values = record.tensor.clone()

    @staticmethod
    def unpack(record):
        # With hooks set PyTorch does not check versions (facts section 3): check like it does.
        now = torch_private.version(record.tensor)
        if now != record.version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{record.tensor.type()} {list(record.tensor.shape)}] is at "
                f"version {now}; expected version {record.version} instead "
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
    for position, name in torch_private.written_arguments(func):
        value = args[position] if position < len(args) else kwargs.get(name)
        yield from tensors_in(value)


def module_names(target):
    """id(module) -> its name in the target (the target itself: its class name); {} for a callable."""
    if not isinstance(target, torch.nn.Module):
        return {}
    names = {id(m): name for name, m in target.named_modules()}
    names[id(target)] = type(target).__name__
    return names
