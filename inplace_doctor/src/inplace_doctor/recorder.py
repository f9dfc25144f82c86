"""Recording a program as it runs: every aten op, every tensor saved for backward, and the
writes no op shows (``Tensor.detach_``, NumPy arrays sharing a tensor's memory).

The recorder is at once a dispatch mode (it sees every aten op) and the pack and unpack hooks of
``saved_tensors_hooks`` (it sees every tensor saved for backward). Which nn.Module is running
comes from ``modules.ModuleTracker``.

Our pack hook switches PyTorch's own checks off for the tensors it packs (with hooks set,
PyTorch checks neither versions nor in-place detaches), so our unpack hook makes the same checks
itself, with the same outcome: a backward under the diagnoser raises where it would have raised
without it, and computes what it would have computed.
"""

import bisect
import contextlib
import functools
import re
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import torch

from . import torch_private
from .aliases import AliasWatch
from .digest import digest, nbytes
from .failure import DiagnoserFailure, guarded
from .location import Location, Site, user_frame, user_stack
from .memory import Memory, alias_of, kind_unexamined, tensors_in
from .modules import ModuleTracker

VERSION_ERROR = "one of the variables needed for gradient computation has been modified by an inplace operation"
DETACHED_ERROR = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
    "This is not supported, please use out-of-place `.detach()` instead"
)


_NONE: Mapping[Any, int] = MappingProxyType({})  # one for all ops: fewer objects for the garbage collector


@dataclass(eq=False, slots=True)
class Op:
    """One aten op, as the dispatch mode saw it (or one of the pseudo-ops of ``Recorder.log``)."""

    index: int
    name: str  # e.g. "aten.add_.Tensor"; "Tensor.detach_" and "Tensor.numpy" for the pseudo-ops
    sequence_nr: int  # autograd's next sequence number: ties backward nodes to the op creating them
    writes: Sequence[Memory]  # Memory the op writes (empty for out-of-place ops)
    # Recorded only where needed (see Recorder.__torch_dispatch__):
    location: Location | None = None
    inputs: Mapping[Any, int] = field(default_factory=lambda: _NONE)  # alias -> version, for the tensors it reads
    outputs: Mapping[Any, int] = field(default_factory=lambda: _NONE)  # alias -> version, once it has returned
    target: Any = None  # Tensor.detach_: a weak reference to the detached tensor
    grad_mode: bool = True  # grad mode was on when it ran (off: torch.no_grad(), an update of values)


@dataclass(eq=False, slots=True, weakref_slot=True)
class SavedRecord:
    """What our pack hook keeps for one saved tensor (the object autograd stores instead)."""

    tensor: torch.Tensor  # a detached alias: same memory and version counter, no reference cycle
    version: int  # the version at save time (what PyTorch's check compares with)
    location: Location | None
    after_op: int | None = None  # the op that saved it is ops[after_op - 1]: writes from there on count
    digest: torch.Tensor | None = None  # of the values as that op left them (digest.py)
    memory: Memory | None = None  # the bytes it covered when saved
    # For a saved *input* PyTorch keeps the tensor itself, not an alias: it then reads whatever
    # that tensor holds at backward (after ``x.data = y`` too), and refuses one detached in place.
    original: Callable[[], torch.Tensor | None] | None = None  # a weak reference to it
    had_grad_fn: bool = False  # that input had a grad_fn when saved (detaching it breaks backward)
    changed_after: Site | None = None  # the line after which its values differed from the digest (aliases.py)
    examined: bool = False  # seen by an examination (a backward's, or of the graphs returned)
    kind: str = ""  # what kind of tensor it is, when the diagnoser cannot read its bytes (memory.kind_unexamined)
    current: Callable[[], torch.Tensor | None] | None = None  # a weak reference to it, for PyTorch's message
    node: type | None = None  # the class of the tensor's grad_fn when saved, for PyTorch's message
    output_nr: int = 0  # which output of that node it is

    def read_by_backward(self) -> torch.Tensor:
        """The tensor backward gets from this slot: the input itself while it lives, else the alias."""
        original = self.original() if self.original is not None else None
        return original if original is not None else self.tensor


_TO_COPY = torch.ops.aten._to_copy.default  # the cast autocast makes (and caches) of each parameter
LOW_PRECISION = (torch.float16, torch.bfloat16)


@dataclass(eq=False)
class Cast:
    """A low-precision copy of a parameter, as autocast caches it for its region."""

    copy: Callable[[], torch.Tensor | None]  # weak references: the copy and its parameter
    source: Callable[[], torch.Tensor | None]
    version: int  # the parameter's version when copied
    op: Op  # the cast, at the forward's line
    dtype: str  # "bfloat16"


def pytorch_error(message: str) -> RuntimeError:
    """The error PyTorch raises, as it raises it (a RuntimeError, its words), for our unpack hook to
    raise where PyTorch's own check would have raised; marked as the program's error, not the
    diagnoser's, for ``failure.guarded`` to let it pass."""
    error = RuntimeError(message)
    error.on_purpose = True  # type: ignore[attr-defined]
    return error


@functools.cache
def _pytorch_words() -> tuple[bool, str]:
    """(names a node without its "Backward0", the hint) of PyTorch's own version error on this
    release, read once from the error itself, raised on a tiny graph before any diagnosis starts."""
    x = torch.ones(1, requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)
    try:
        y.backward()
    except RuntimeError as error:
        text = str(error)
        return ", which is output 0 of Sigmoid," in text, text.split(" Hint: ", 1)[-1]
    return False, ""


def version_error(record: "SavedRecord", now: int) -> str:
    """PyTorch's own message for a saved tensor written since it was saved (SavedVariable::unpack):
    the tensor as it is now (its size), where it still lives."""
    current = record.current() if record.current is not None else None
    tensor = record.tensor if current is None else current
    try:
        shape = str(list(tensor.shape))
    except RuntimeError:  # a nested tensor has no one shape
        shape = "[nested]"
    short, hint = _pytorch_words()
    # A saved input is named by the node that made it last (after the write); a saved result by its node
    grad_fn = tensor.grad_fn if current is not None and record.original is not None else None
    name = grad_fn.name() if grad_fn is not None else record.node.__name__ if record.node is not None else ""
    name = re.sub(r"Backward(?=\d*$)0?", "", name) if short else name  # ClampBackward1: Clamp1
    output_nr = tensor.output_nr if grad_fn is not None else record.output_nr
    node = f", which is output {output_nr} of {name}," if name else ""
    if torch.is_anomaly_enabled():
        hint = (
            "the backtrace further above shows the operation that failed to compute its gradient. The variable in "
            "question was changed in there or anywhere later. Good luck!"
        )
    described = tensor.type()  # "torch.FloatTensor"; PyTorch names complex types its C++ way
    if tensor.is_complex():
        described = f"{tensor.device.type.upper()}{described.split('.')[-1].removesuffix('Tensor')}Type"
    return (
        f"{VERSION_ERROR}: [{described} {shape}]{node} is at version {now}; expected version "
        f"{record.version} instead. Hint: {hint}"
    )


class Recorder(torch_private.DispatchMode):
    """Logs ops (dispatch mode), saved tensors (pack hook) and pseudo-ops (``log``)."""

    def __init__(self, modules: ModuleTracker):
        super().__init__()
        # Only the ops the matching reads are kept: writes, pseudo-ops, and the ops that may save
        # outside our pack hook (see others_may_save). Every op still takes an index.
        self.ops: list[Op] = []
        self.next_index = 0  # the index the next op takes
        self.writes = 0  # ops that wrote a tensor argument, so far (a module's weight initialisation not counted)
        self.init_writes = 0  # those of a module's weight initialisation (nn.init), left out of writes
        self.in_function = 0  # custom autograd.Function.apply calls running (session wraps it)
        self.saved_elsewhere = False  # others_may_save() held once: ops keep versions (matching._when_saved)
        self.last_sequence_nr = -1  # autograd's next sequence number when the last op ran
        self.numpy_views: list[Op] = []  # where NumPy arrays were made of tensors' memory
        self.modules = modules
        self.paused = False  # inside backward: pass ops through, keep records light
        # While a backward that runs the program's own Python (a custom Function's backward) runs:
        # the line that called it. Writes from other lines are the program's, and are logged.
        self.backward_call: Site | None = None
        self.locations: dict[Location, Location] = {}  # the writes' (see _before_op)
        self.casts: dict[int, Cast] = {}  # storage address of a low-precision copy of a parameter -> it
        # Reads of such a copy after its parameter changed: (the copy, the writes since, where it was read)
        self.stale_casts: list[tuple[Cast, list[Op], Location]] = []
        self.unresolved: tuple[Op, list[torch.Tensor]] | None = None  # outputs' versions, read at the next op
        self.unsettled: list[SavedRecord] = []  # saved inputs of the op about to run: settled once it has run
        self.records: weakref.WeakSet[SavedRecord] = weakref.WeakSet()  # those still held by a graph
        self.failed: list[SavedRecord] = []  # slots our unpack hook refused, in the order it met them
        # Writes to views, (op, weak reference to the view): a later "view and its base modified"
        # error is tied to its write by asking the view itself (session.view_error_write).
        self.views_written: list[tuple[Op, Any]] | None = []
        self.aliases = AliasWatch(lambda: list(self.records))
        self.hooks = (self.pack, self.unpack)  # one object each, to recognise them on the hooks stack
        _pytorch_words()  # PyTorch's own words, read before this recorder is in force

    def _new_op(self, name: str, writes: Sequence[Memory], **details: Any) -> Op:
        self.last_sequence_nr = torch_private.sequence_nr()
        op = Op(self.next_index, name, self.last_sequence_nr, writes, **details)
        self.next_index += 1
        return op

    # ---- the dispatch mode: every aten op

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        # Only func(...) is the program's: an error anywhere else is the diagnoser's own (failure.py).
        try:
            name, written_arguments, foreach, composite = self._op_facts(func)
            # Such an op makes its views as without the mode only with ADInplaceOrView back
            guard = torch_private.views_tracked() if composite and torch.is_inference_mode_enabled() else None
        except Exception as error:
            raise DiagnoserFailure(error, f"recording {func}") from error
        if guard is None:
            return self._dispatch(func, name, written_arguments, foreach, args, kwargs)
        with guard:
            return self._dispatch(func, name, written_arguments, foreach, args, kwargs)

    def _dispatch(
        self,
        func: Any,
        name: str,
        written_arguments: tuple[tuple[int, str], ...],
        foreach: bool,
        args: tuple,
        kwargs: dict,
    ) -> Any:
        try:
            passed = self.paused and not foreach
            if passed:
                if written_arguments and self.backward_call is not None:
                    self._log_backward_write(name, written_arguments, args, kwargs)
            elif self.paused:
                written = list(_written(written_arguments, args, kwargs))
                before = [torch_private.version(t) for t in written]
            else:
                written, op, before = self._before_op(name, written_arguments, foreach, args, kwargs)
        except Exception as error:
            raise DiagnoserFailure(error, f"recording {func}") from error
        if passed:
            return func(*args, **kwargs)
        out = func(*args, **kwargs)
        try:
            if self.casts:
                self._check_casts(args)
            if func is _TO_COPY and not self.paused:
                self._log_cast(args, out)
            # Under any dispatch mode, torch 2.13's in-place foreach ops (foreach=True optimizers, the CUDA
            # default) leave version counters alone, which they bump once without one: bumped here, as
            # without the diagnoser, unless the op did (a later torch).
            if foreach and all(torch_private.version(t) == v for t, v in zip(written, before, strict=False)):
                for t in written:
                    torch_private.bump_version(t)
            if not self.paused:
                if self.unsettled:
                    self.settle_inputs()
                if op is not None and self.saved_elsewhere:  # in-place ops bump versions only after this returns
                    self.unresolved = (op, tensors_in(out))
        except Exception as error:
            raise DiagnoserFailure(error, f"recording {func}") from error
        return out

    # ---- low-precision copies of parameters (autocast's cache)

    def _log_cast(self, args: tuple, out: Any) -> None:
        """A low-precision copy of a parameter (a leaf that requires grad), as autocast makes and
        caches for its region: kept, to tell when a later op reads it after the parameter changed."""
        source = args[0] if args else None
        if not (
            isinstance(source, torch.Tensor)
            and isinstance(out, torch.Tensor)
            and out.dtype in LOW_PRECISION
            and source.dtype not in LOW_PRECISION
            and source.is_leaf
            and source.requires_grad
        ):
            return
        op = self._new_op("autocast's cast", (), location=self.location())
        self.casts[torch_private.storage_address(out)] = Cast(
            weakref.ref(out), weakref.ref(source), torch_private.version(source), op, str(out.dtype).split(".")[-1]
        )

    def _check_casts(self, args: tuple) -> None:
        """An op reads a kept copy whose parameter was written since the copy was made: it computes
        with the old values (autocast's cache serves a forward after an optimizer step in its region)."""
        for tensor in tensors_in(args):
            cast = self.casts.get(torch_private.storage_address(tensor))
            if cast is None:
                continue
            copy, source = cast.copy(), cast.source()
            if copy is None or source is None:  # freed: the address may now be another tensor's
                del self.casts[torch_private.storage_address(tensor)]
            elif torch_private.version(source) != cast.version:
                del self.casts[torch_private.storage_address(tensor)]
                memory = Memory.of(source)
                writes = [
                    op
                    for op in self.ops
                    if op.index > cast.op.index and memory is not None and any(memory.overlaps(m) for m in op.writes)
                ]
                self.stale_casts.append((cast, writes, self.location()))

    def _log_backward_write(
        self, name: str, written_arguments: tuple[tuple[int, str], ...], args: tuple, kwargs: dict
    ) -> None:
        """A write made during a backward by the program's own code (a custom Function's backward),
        not by the engine (whose innermost user line is the backward's call): logged as a write."""
        site, callers, _ = user_stack()
        if site == self.backward_call:
            return
        written = [m for t in _written(written_arguments, args, kwargs) if (m := Memory.of(t)) is not None]
        if written:
            self.writes += 1
            location = self.modules.location(*site, callers)
            self.ops.append(self._new_op(name, written, location=location, grad_mode=torch.is_grad_enabled()))

    def _before_op(
        self, name: str, written_arguments: tuple[tuple[int, str], ...], foreach: bool, args: tuple, kwargs: dict
    ) -> tuple[list[torch.Tensor], Op | None, list[int]]:
        if self.unresolved is not None:
            self.resolve_outputs()
        written = list(_written(written_arguments, args, kwargs)) if written_arguments else []
        # Writes are logged with their line; so are the ops that may save where our pack hook does not
        # see (others_may_save), to place those saves. Other ops only take an index, for speed.
        elsewhere = self.others_may_save()
        self.saved_elsewhere = self.saved_elsewhere or elsewhere
        op: Op | None = None
        if written or elsewhere:
            if written:  # counted for the report's first line, and named with the calls that led there
                site, callers, initialising = user_stack()
                self.writes += not initialising
                self.init_writes += initialising
                location = self.modules.location(*site, callers)
                location = self.locations.setdefault(location, location)  # one object per line and module
            else:
                location = self.location()
            op = self._new_op(
                name,
                tuple(m for t in written if (m := Memory.of(t)) is not None),
                location=location,
                grad_mode=torch.is_grad_enabled(),
            )
            if self.saved_elsewhere:  # the versions of what it reads (and returns: resolve_outputs)
                op.inputs = {
                    a: torch_private.version(t) for t in tensors_in((args, kwargs)) if (a := alias_of(t)) is not None
                }
            self.ops.append(op)
            if written and self.views_written is not None:
                self.views_written.extend((op, weakref.ref(t)) for t in written if torch_private.is_view(t))
        else:
            self.last_sequence_nr = torch_private.sequence_nr()
            self.next_index += 1
        before = [torch_private.version(t) for t in written] if foreach else []
        return written, op, before

    @staticmethod
    @functools.cache
    def _op_facts(func: Any) -> tuple[str, tuple[tuple[int, str], ...], bool, bool]:
        """(name, written arguments, is an in-place foreach op, makes its views unseen by autograd
        in inference mode) of an aten op, read once per process."""
        written = torch_private.written_arguments(func)
        foreach = torch_private.is_foreach_op(func) and bool(written)
        return str(func), written, foreach, torch_private.views_made_below_the_mode(func)

    def others_may_save(self) -> bool:
        """Can this op's node save tensors our pack hook does not see?

        Yes under someone else's saved_tensors_hooks (the innermost hooks win), and inside a
        custom Function's forward (it runs with grad mode off), where ctx attributes are set; not in
        other code run with grad mode off (an optimizer step, clipping), whose ops save nothing.
        """
        hooks = torch_private.innermost_saved_tensors_hooks()
        return bool(self.in_function and not torch.is_grad_enabled()) or hooks is None or hooks[0] is not self.hooks[0]

    @guarded("recording an op's results")
    def resolve_outputs(self) -> None:
        if self.unresolved is not None:
            op, outputs = self.unresolved
            op.outputs = {a: torch_private.version(t) for t in outputs if (a := alias_of(t)) is not None}
            self.unresolved = None

    @guarded("recording saved tensors")
    def settle_inputs(self) -> None:
        with torch_private.dispatch_disabled():
            for record in self.unsettled:
                self.settle(record)
        self.unsettled = []

    def location(self) -> Location:
        return self.modules.location(*user_frame())

    # ---- the pseudo-ops: what changes a tensor without an aten op

    @guarded("recording a detach_")
    def log_detach(self, tensor: torch.Tensor) -> None:
        """``tensor.detach_()`` is about to run (it never reaches a dispatch mode)."""
        if self.paused or not isinstance(tensor, torch.Tensor):
            return
        self.resolve_outputs()
        self.ops.append(self._new_op("Tensor.detach_", (), location=self.location(), target=weakref.ref(tensor)))

    def log_refused(self, name: str) -> Op:
        """An in-place call PyTorch refused: an op at the user's line that wrote nothing."""
        site, callers, _ = user_stack()
        location = self.modules.location(*site, callers)
        return self._new_op(name, (), location=location, grad_mode=torch.is_grad_enabled())

    @guarded("recording a NumPy alias")
    def log_numpy(self, tensor: torch.Tensor, array: Any = None) -> None:
        """A NumPy array sharing the tensor's memory was made: writes through it are unseen, so
        the saved tensors it shares memory with are watched line by line while it lives (aliases.py)."""
        memory = Memory.of(tensor) if not self.paused and isinstance(tensor, torch.Tensor) else None
        if memory is not None:
            self.numpy_views.append(self._new_op("Tensor.numpy", (memory,), location=self.location()))
            if array is not None:
                self.aliases.add(array, memory)

    # ---- the saved-tensor hooks: every tensor saved for backward

    @guarded("recording a saved tensor")
    def pack(self, tensor: torch.Tensor) -> SavedRecord:
        with torch_private.dispatch_disabled():  # our own detach and digest are not the program's ops
            record = SavedRecord(tensor.detach(), torch_private.version(tensor), None)
            if self.paused:  # saved during backward (a recomputation, create_graph): checked, not matched
                record.after_op = self.next_index
                return record
            record.location = self.location()
            record.memory = Memory.of(tensor)
            if record.memory is None:
                record.kind = kind_unexamined(tensor)
            grad_fn = tensor.grad_fn
            record.current = weakref.ref(tensor)
            if grad_fn is not None:
                record.node, record.output_nr = type(grad_fn), tensor.output_nr
            now = torch_private.sequence_nr()
            # A node saves its inputs before its op runs and its results after; a result's grad_fn
            # is the node just created, which took the sequence number before the current one.
            result = grad_fn is not None and torch_private.node_sequence_nr(grad_fn) == now - 1
            if not result:
                record.original, record.had_grad_fn = weakref.ref(tensor), grad_fn is not None
            # What counts as "the saved values" is what that op left: BatchNorm, e.g., updates the
            # running stats it saves. A node saves its inputs before its op runs and its results after.
            if now == self.last_sequence_nr:
                self.settle(record)  # no node was created since the last op: a result of that op
            else:
                self.unsettled.append(record)  # a new node: an input of the op about to run
        self.records.add(record)
        return record

    def settle(self, record: SavedRecord) -> None:
        """Call it with dispatch disabled: the digest is not the program's op."""
        record.after_op = self.next_index
        if not record.kind:
            record.digest = digest(record.tensor)

    @guarded("checking a saved tensor at backward")
    def unpack(self, record: SavedRecord) -> torch.Tensor:
        __tracebackhide__ = True  # its error is PyTorch's, shown from the program's frames
        # With hooks set PyTorch checks nothing: check as it does.
        now = torch_private.version(record.tensor)
        if now != record.version:
            self.failed.append(record)
            raise pytorch_error(version_error(record, now))
        tensor = record.read_by_backward()
        if record.had_grad_fn and tensor is not record.tensor and tensor.grad_fn is None:
            self.failed.append(record)
            raise pytorch_error(DETACHED_ERROR)
        return tensor

    @contextlib.contextmanager
    def paused_for_backward(self, call: Site | None = None) -> Iterator[None]:
        """Pass the ops of a backward through unrecorded. When this mode is the innermost one it
        leaves the mode stack meanwhile, so that backward's ops do not pay for a Python call each;
        unless the backward runs the program's own code (``call``: the line that called backward),
        whose writes are logged."""
        self.paused, self.backward_call = True, call
        innermost = call is None and torch_private.is_innermost_dispatch_mode(self)
        if innermost:
            self.__exit__(None, None, None)
        try:
            yield
        finally:
            if innermost:
                self.__enter__()
            self.paused, self.backward_call = False, None

    # ---- keeping the log short

    @guarded("trimming its log")
    def forget_ops_before(self, index: int) -> None:
        """Drop the ops older than index: no live saved tensor was saved before it."""
        del self.ops[: bisect.bisect_left(self.ops, index, key=lambda op: op.index)]
        if self.views_written is not None:
            self.views_written = [(op, ref) for op, ref in self.views_written[-256:] if ref() is not None]
        self.numpy_views = [op for op in self.numpy_views if op.index >= index]

    def oldest_live_record(self) -> int:
        """The after_op of the oldest saved tensor a graph still holds (next_index if none)."""
        return min((r.after_op for r in list(self.records) if r.after_op is not None), default=self.next_index)

    def held_bytes(self) -> int:
        """Bytes of tensor data the recorder itself keeps alive (digests; its aliases share memory)."""
        return sum(nbytes(r.digest) for r in list(self.records))


def _written(arguments: tuple[tuple[int, str], ...], args: tuple, kwargs: dict) -> Iterator[torch.Tensor]:
    """The tensor arguments the op's schema marks as written, ``Tensor(a!)``."""
    for position, name in arguments:
        yield from tensors_in(args[position] if position < len(args) else kwargs.get(name))
