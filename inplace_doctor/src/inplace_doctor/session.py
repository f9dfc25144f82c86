"""A diagnosing session: records the program while it runs and examines each backward before it runs.

While a session is entered, the recorder (``recorder``) is the dispatch mode and the saved-tensor
hooks in force, module hooks name the running module (``modules``), a torch function mode sees the
in-place calls PyTorch refuses (``refusals``), and ``Tensor.detach_``, ``Tensor.numpy``, the
registration of gradient hooks and torch.func's transforms are wrapped (the package's docstring
says why). ``torch.autograd.backward`` (so ``Tensor.backward``) and ``torch.autograd.grad`` are
wrapped too: before a backward runs, the nodes it will run are walked and every slot they saved is
matched against the writes logged since it was saved (``graph``, ``matching``); then the backward
runs as it would have, the recorder stepping aside (``Recorder.paused_for_backward``). A
version-counter or detach error it raises is tied to the finding that explains it, and propagates.

When the program ends, the graphs it left alive that no examination saw are examined too
(``left_graphs``). Everything is restored on exit. A backward called from inside a backward (a
reentrant checkpoint recomputing its block) is the outer one's business and is not examined apart.
"""

import contextlib
import functools
import gc
import inspect
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.autograd.graph import saved_tensors_hooks

from . import hooks, torch_private, transforms
from .failure import guarded
from .findings import AUTOCAST_STALE, GRAD_HOOK, INFERENCE, RAISING, REFUSED, VIEW_MODIFIED, Finding
from .graph import SavedSlot, running_nodes, slots_of
from .location import Location, Site, at, is_internal, user_frame
from .matching import WriteLog, match, match_all
from .memory import Memory, tensors_in
from .modules import ModuleTracker
from .recorder import VERSION_ERROR, Op, Recorder, SavedRecord
from .refusals import RefusalWatch, refused_target

# The diagnoser's blind spots, said where they are met (README: Limits)
MUTATION_ALLOWED = (
    "the backward passes run inside torch.autograd.graph.allow_mutation_on_saved_tensors(), whose own "
    "saved-tensor hooks keep the tensors saved there (cloned before an in-place write) instead of the diagnoser's"
)
SAC_CACHE = (
    "the tensors selective activation checkpointing caches (create_selective_checkpoint_contexts), which "
    "its own dispatch mode keeps, not saved for backward; PyTorch checks their versions at backward"
)


def is_inplace_error(error: BaseException, session: "Session | None" = None) -> bool:
    """Is this PyTorch's in-place error: a saved tensor overwritten or detached in place, a view
    whose base was modified in place, an in-place write refused?

    With a session, the answer comes from where the error came from: a backward the session
    examined raised it and the examination found a slot PyTorch refuses (a stale version, a
    detached input), or our own unpack hook raised it, or a view the session saw written raises
    the same error when asked for its gradient function, or an in-place call the session saw
    raised it, its tensor in a state PyTorch refuses to write. Without one (a run without the
    diagnoser, as the tests judge PyTorch), from PyTorch's words.
    """
    if not isinstance(error, RuntimeError):
        return False
    if session is not None:
        return error is session.error or any(error is e for e, _ in session.op_errors)
    text = str(error)
    return (
        VERSION_ERROR in text
        or "has been detached in-place" in text
        or ("its base or another view of its base has been modified inplace" in text)
    )


@dataclass
class BackwardPass:
    """One examination: a backward about to run, or the outputs of a program that ran none."""

    number: int | None  # 1, 2, ... for backward passes; None for outputs examined after the program
    call: Site | None  # the line that called backward
    ops: int  # aten ops recorded since the previous pass
    writes: int  # of which in-place writes
    saved: int  # saved slots inspected
    nodes: int  # backward nodes that will run
    findings: list[Finding] = field(default_factory=list)  # this pass's, before removing repeats
    raised: str | None = None  # the first line of the in-place error this backward raised
    raised_by: Finding | None = None  # the finding that explains it, when one does
    create_graph: bool = False  # a gradient that is part of a larger graph (a gradient penalty): not a step
    initialising: int = 0  # in-place writes of a module's weight initialisation, left out of ``writes``


class Session:
    def __init__(self, target: Any = None):
        self.modules = ModuleTracker(target)
        self.recorder = Recorder(self.modules)
        self.passes: list[BackwardPass] = []
        self.findings: dict[tuple, Finding] = {}  # key -> the first finding of that bug
        self.on_pass: Callable[[BackwardPass], None] | None = None  # after each backward that returned
        self.on_raise: Callable[[BackwardPass, BaseException], None] | None = None  # after one that raised
        self.error: BaseException | None = None  # the in-place error a watched backward raised
        # In-place errors raised at an op, not at a backward, with their findings: a view used after
        # its base was modified, a write PyTorch refused.
        self.op_errors: list[tuple[BaseException, Finding]] = []
        self.last_nodes: list = []
        self._depth = 0
        self._active = False
        self._counted = (0, 0, 0)  # (next op index, writing ops, weight-initialising ops) at the previous pass
        self._patched: list[tuple[Any, str, Any, bool]] = []
        self._hooks: saved_tensors_hooks | None = None
        self._refusals = RefusalWatch(self.recorder, self.note_refusal)
        self._finding_of_record: dict[int, Finding] = {}  # the last pass's, while its records live
        self._slot_of_record: dict[int, SavedSlot] = {}  # the slots the last pass examined, by record
        self._running: BackwardPass | None = None  # the backward running now, if one is
        # What the diagnoser met but could not examine, each said once, with why ("not examined: ...")
        self.not_examined: dict[str, None] = {}

    # ---- entering and leaving

    def __enter__(self) -> "Session":
        self.modules.install()
        self._patch()
        self._hooks = saved_tensors_hooks(*self.recorder.hooks)
        self._hooks.__enter__()
        self.recorder.__enter__()
        self._refusals.__enter__()
        self._active = True
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._active = False
        try:
            self._refusals.__exit__(*exc_info)
            self.recorder.resolve_outputs()
            self.recorder.settle_inputs()
            self.recorder.__exit__(*exc_info)
        finally:
            self.recorder.aliases.remove()
            if self._hooks is not None:
                self._hooks.__exit__(*exc_info)
            self._unpatch()
            self.modules.remove()

    def _patch(self) -> None:
        recorder = self.recorder
        original_numpy = torch.Tensor.numpy

        def detaching(original: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
            @functools.wraps(original)
            def detach_(tensor: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
                recorder.log_detach(tensor)
                return original(tensor, *args, **kwargs)

            return detach_

        @functools.wraps(original_numpy)
        def numpy(tensor: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
            array = original_numpy(tensor, *args, **kwargs)
            recorder.log_numpy(tensor, array)
            return array

        self._set(torch.autograd, "backward", self._examined(torch.autograd.backward))
        self._set(torch.autograd, "grad", self._examined(torch.autograd.grad))
        self._set(torch.Tensor, "detach_", detaching(torch.Tensor.detach_))
        self._set(torch, "detach_", detaching(torch.detach_))
        self._set(torch.Tensor, "numpy", numpy)
        original_from_numpy = torch.from_numpy

        @functools.wraps(original_from_numpy)
        def from_numpy(array: Any) -> torch.Tensor:
            tensor = original_from_numpy(array)
            recorder.log_numpy(tensor, array)
            return tensor

        self._set(torch, "from_numpy", from_numpy)
        for name, replacement in transforms.REPLACEMENTS.items():  # torch.func refuses saved-tensor hooks
            self._set(torch.func, name, transforms.eager(getattr(torch.func, name), replacement))
        self._set(torch.func, "vmap", transforms.lifting(torch.func.vmap, self.hooks_lifted))
        selective = torch.utils.checkpoint.create_selective_checkpoint_contexts

        @functools.wraps(selective)
        def selective_contexts(*args: Any, **kwargs: Any) -> Any:
            self.not_examined[SAC_CACHE] = None
            return selective(*args, **kwargs)

        self._set(torch.utils.checkpoint, "create_selective_checkpoint_contexts", selective_contexts)
        function_apply = vars(torch.autograd.Function)["apply"]  # a classmethod; from torch 2.14 one in C

        @functools.wraps(function_apply)
        def apply(cls: Any, *args: Any, **kwargs: Any) -> Any:
            recorder.in_function += 1  # its forward may keep tensors on ctx, unseen by our pack hook
            recorder.saved_elsewhere = True
            try:
                return function_apply.__get__(None, cls)(*args, **kwargs)
            finally:
                recorder.in_function -= 1

        self._set(torch.autograd.Function, "apply", classmethod(apply))
        hooks.wrap_registrations(self._set, lambda: self._active, self.note_hook_write)

    @contextlib.contextmanager
    def hooks_lifted(self) -> Iterator[None]:
        """Our saved-tensor hooks off (vmap refuses them): what runs meanwhile saves unrecorded."""
        hooks, innermost = self._hooks, torch_private.innermost_saved_tensors_hooks()
        if hooks is None or innermost is None or innermost[0] is not self.recorder.hooks[0]:
            yield
            return
        hooks.__exit__(None, None, None)
        try:
            yield
        finally:
            hooks.__enter__()

    def _set(self, owner: Any, name: str, value: Any) -> None:
        own = name in vars(owner)  # torch.Tensor inherits detach_ and numpy: restore by deleting
        self._patched.append((owner, name, vars(owner)[name] if own else None, own))  # a classmethod as it is
        setattr(owner, name, value)

    def _unpatch(self) -> None:
        for owner, name, original, own in reversed(self._patched):
            if own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)
        self._patched = []

    # ---- backward

    def _examined(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """``torch.autograd.backward`` or ``grad``, examining the graph before it runs."""
        session, signature = self, _signature(original)

        @functools.wraps(original)
        def backward(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True  # a backward's error shows the program's frames, not this one
            if session._depth or not session._active:
                return original(*args, **kwargs)
            try:
                bound = signature.bind(*args, **kwargs).arguments
            except TypeError:  # bad arguments: PyTorch's own error says so
                return original(*args, **kwargs)
            inputs = bound.get("inputs")
            roots = tensors_in(bound.get("tensors", bound.get("outputs")))
            call = user_frame()
            this_pass = session.examine(roots, None if inputs is None else tensors_in(inputs), call=call)
            this_pass.create_graph = bool(bound.get("create_graph"))
            session._depth += 1
            failed_before = len(session.recorder.failed)
            own_code = any(torch_private.is_custom_function_node(n) for n in session.last_nodes)
            session._running = this_pass
            try:
                with session.recorder.paused_for_backward(call if own_code else None):
                    result = original(*args, **kwargs)
            except RuntimeError as error:
                failed = session.recorder.failed[failed_before:]
                if failed or any(f.check in RAISING for f in this_pass.findings):  # a slot PyTorch refuses
                    session._explain(this_pass, error, failed)
                    if session.on_raise is not None:
                        session.on_raise(this_pass, error)
                elif is_inplace_error(error):  # PyTorch's own check, on a tensor saved where we did not see
                    session.error = error
                    this_pass.raised = str(error).strip().splitlines()[0].split(" Hint: ")[0]
                    session.unseen_save(this_pass)
                raise
            finally:
                session._depth -= 1
                session._running = None
                session.recorder.forget_ops_before(session.recorder.oldest_live_record())
            if session.on_pass is not None:
                session.on_pass(this_pass)
            return result

        return backward

    @guarded("examining the graph before a backward")
    def examine(
        self,
        roots: Sequence[torch.Tensor],
        inputs: Sequence[torch.Tensor] | None = None,
        call: Site | None = None,
        left: bool = False,
    ) -> BackwardPass:
        """Match every slot the nodes a backward from roots runs saved; note the new findings.
        ``left``: only the slots this session saved that no examination has seen yet (the graphs
        a program left behind, whose parts a backward already examined are not its business)."""
        recorder = self.recorder
        recorder.resolve_outputs()
        recorder.settle_inputs()
        if torch_private.mutation_on_saved_tensors_allowed():
            self.not_examined[MUTATION_ALLOWED] = None
        with torch_private.dispatch_disabled():
            nodes = running_nodes([t.grad_fn for t in roots if t.grad_fn is not None], inputs)
            frames: set = set()
            slots = [slot for node in nodes for slot in _readable_slots(node, frames)]
            if left:
                slots = [
                    s for s in slots if s.record is not None and s.record in recorder.records and not s.record.examined
                ]
            for slot in slots:
                if slot.record is not None:
                    slot.record.examined = True
            log = WriteLog(recorder)
            matched = list(zip(slots, match_all(slots, log, recorder.next_index), strict=False))
        for slot, finding in matched:
            if finding is not None and finding.write is None and slot.record is not None:
                self._not_compared(slot.record)
        found = [f for _, f in matched if f is not None] + self._stale_casts()
        number = len(self.passes) + 1 if call is not None else None
        found.sort(key=lambda f: (f.write.index if f.write else recorder.next_index, f.node, f.attribute))
        unique: dict[tuple, Finding] = {}
        for finding in found:
            finding.backward, finding.left = number, left
            finding.noted_in(unique)
        found = list(unique.values())
        writing = recorder.writes - self._counted[1]
        this_pass = BackwardPass(
            number, call, recorder.next_index - self._counted[0], writing, len(slots), len(nodes), found
        )
        this_pass.initialising = recorder.init_writes - self._counted[2]
        self._counted = (recorder.next_index, recorder.writes, recorder.init_writes)
        self._finding_of_record = {
            id(slot.record): unique[f.key] for slot, f in matched if f is not None and slot.record is not None
        }
        self._slot_of_record = {id(slot.record): slot for slot in slots if slot.record is not None}
        self.passes.append(this_pass)
        self.last_nodes = nodes
        for finding in found:
            finding.noted_in(self.findings)
        return this_pass

    def _stale_casts(self) -> list[Finding]:
        """A finding for each read of autocast's cached copy of a parameter written since."""
        found = [
            Finding(
                f"cached {cast.dtype} copy (autocast's)",
                "",
                cast.op.location,
                cast.version,
                cast.version if (source := cast.source()) is None else torch_private.version(source),
                writes[0] if writes else None,
                writes[1:],
                AUTOCAST_STALE,
                used_at=used_at,
            )
            for cast, writes, used_at in self.recorder.stale_casts
        ]
        self.recorder.stale_casts = []
        return found

    def unseen_save(self, this_pass: BackwardPass) -> None:
        """PyTorch's own check refused a saved tensor the diagnoser did not see saved: said, not examined."""
        self.not_examined[
            f"the saved tensor PyTorch's version check refused at backward {this_pass.number}: it was saved "
            "where the diagnoser did not see it (before it started, in an earlier cell, or under "
            "saved-tensor hooks of the program's own)"
        ] = None

    def _not_compared(self, record: SavedRecord) -> None:
        """Say which saved tensor's writes were not examined, when its bytes cannot be compared."""
        if record.kind:
            saved = f" saved at {at(record.location.path, record.location.line)}" if record.location else ""
            self.not_examined[
                f"which write changed {record.kind}{saved} (its version changed): the diagnoser compares "
                "the memory of strided tensors with memory of their own only"
            ] = None

    @guarded("looking for the graphs the program left")
    def left_graphs(self) -> list[torch.Tensor]:
        """The live tensors with a graph, when a graph holds a tensor this session saved that no
        examination has seen (a loss kept on an object or a global, never backwarded): found
        among the objects the garbage collector tracks, so wherever the program keeps them."""
        if all(record.examined for record in list(self.recorder.records)):
            return []
        found = []
        for value in gc.get_objects():
            if issubclass(type(value), torch.Tensor):  # not isinstance: odd objects warn when asked their __class__
                try:
                    if value.grad_fn is not None:
                        found.append(value)
                except RuntimeError:  # a view PyTorch refuses since its base was modified
                    continue
        return found

    @guarded("explaining a backward's error")
    def _explain(self, this_pass: BackwardPass, error: RuntimeError, failed: list) -> None:
        """Tie the error a backward raised to the finding that explains it."""
        self.error = error
        this_pass.raised = str(error).strip().splitlines()[0].split(" Hint: ")[0]  # the diagnoser is the hint
        explained = None
        for record in failed[:1]:  # PyTorch stops at the first slot it refuses
            explained = self._finding_of_record.get(id(record))
            if explained is None:  # written during the backward, or a slot the walk could not reach: match it now
                slot = self._slot_of_record.get(id(record)) or SavedSlot(
                    "", "a saved tensor of a node that this backward had already run", record.tensor, "ours", record
                )
                with torch_private.dispatch_disabled():
                    explained = match(slot, WriteLog(self.recorder), self.recorder.next_index)
                if explained is not None:
                    explained.backward = this_pass.number
                    this_pass.findings.append(explained)
                    self.findings.setdefault(explained.key, explained)
        for record in failed[:1]:
            if explained is None or explained.write is None:
                self._not_compared(record)
        if "selective activation checkpoint" in str(error):
            self.not_examined[SAC_CACHE] = None
        if explained is None:  # PyTorch's own check (a slot saved outside our hooks): backward
            raising = [f for f in this_pass.findings if f.check in RAISING]  # meets the latest node first
            explained = max(raising, key=lambda f: f.order, default=None)
        if explained is None and not failed:
            self.unseen_save(this_pass)
        this_pass.raised_by = self.findings.get(explained.key, explained) if explained is not None else None

    @guarded("recording a gradient hook's write")
    def note_hook_write(self, kind: str, write: Op, registered: Location) -> None:
        """A gradient hook wrote the gradient it was handed (``hooks``): a finding at the hook's line."""
        location = write.location
        if location is not None:  # the running module, as for any write
            write.location = self.modules.location(location.path, location.line, location.callers)
        finding = Finding(f"the gradient a {kind} hook was handed", "", registered, None, 0, write, [], GRAD_HOOK)
        running = self._running
        finding.backward = running.number if running is not None else None
        if finding.noted_in(self.findings) is finding and running is not None:
            running.findings.append(finding)

    @guarded("recording a refused write")
    def note_refusal(self, error: RuntimeError, func: Any, args: tuple, kwargs: dict, dispatched: bool) -> None:
        """An in-place call raised: if PyTorch refused it (``refused_target``), a finding at its line."""
        refused = refused_target(func, args, kwargs)
        if refused is None or (dispatched and refused[0] != INFERENCE) or any(e is error for e, _ in self.op_errors):
            return
        what, tensor = refused
        name = torch.overrides.resolve_name(func) or getattr(func, "__qualname__", str(func))
        op = self.recorder.log_refused(name.removeprefix("torch."))
        finding = Finding(what, "", None, None, torch_private.version(tensor), op, [], REFUSED)
        self.findings.setdefault(finding.key, finding)
        self.op_errors.append((error, finding))

    @guarded("explaining an error")
    def explain_error(self, error: BaseException) -> Finding | None:
        """The finding for an in-place error raised at an op: a write PyTorch refused (noted as it
        happened), or PyTorch's "view and its base (or another view of it) modified inplace" error,
        raised at the use of a view after a write. The view is found by asking tensors
        for their gradient function, which raises that very error for it: first the views the
        session saw written, then the tensors the failing frames hold. The write is the one the
        session saw written to that view, else the last write to its memory."""
        known = next((finding for e, finding in self.op_errors if e is error), None)
        if known is not None or not isinstance(error, RuntimeError) or self.recorder.views_written is None:
            return known
        written = [(op, ref()) for op, ref in reversed(self.recorder.views_written)]
        for op, view in written + [(None, t) for t in _tensors_of_frames(error)]:
            if view is None or not torch_private.is_view(view) or not _raises_the_same(view, error):
                continue
            if op is None and (memory := Memory.of(view)) is not None:  # the last write to its memory
                writes = (o for o in reversed(self.recorder.ops) if any(m.key == memory.key for m in o.writes))
                op = next(writes, None)
            finding = Finding(
                _view_node(str(error)),
                "a view",
                None,
                None,
                torch_private.version(view),
                op,
                [],
                VIEW_MODIFIED,
                backward=len(self.passes) + 1,
            )
            self.findings.setdefault(finding.key, finding)
            self.op_errors.append((error, finding))
            return finding
        return None


# Once per process: a session wraps the same two functions each time it starts
_signature = functools.cache(inspect.signature)


def _readable_slots(node: Any, frames: set) -> list[SavedSlot]:
    """The node's slots; none when its saved tensors were freed (a backward already ran it)."""
    try:
        return list(slots_of(node, frames))
    except RuntimeError:
        return []


def _view_node(message: str) -> str:
    """ "Output 0 of MyFnBackward" from PyTorch's view error, or "a view"."""
    head = message.strip().split(" is a view", 1)[0]
    return head if head and len(head) < 80 else "a view"


def _raises_the_same(view: torch.Tensor, error: BaseException) -> bool:
    try:
        view.grad_fn  # noqa: B018 (reading it raises PyTorch's view error again, or not)
    except RuntimeError as again:
        return str(again) == str(error)
    return False


def _tensors_of_frames(error: BaseException) -> list[torch.Tensor]:
    """The tensors the user's frames of the error's traceback hold, innermost frame first."""
    frames = [f for f, _ in traceback.walk_tb(error.__traceback__) if not is_internal(f.f_code.co_filename)]
    found: list[torch.Tensor] = []
    for frame in reversed(frames):
        for value in list(frame.f_locals.values()):
            if isinstance(value, (torch.Tensor, tuple, list, dict)):
                found.extend(tensors_in(value))
    return found
