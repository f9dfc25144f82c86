"""Every private PyTorch API inplace_doctor relies on, and a probe for each.

The rest of the package reaches PyTorch's internals only through the functions here, so when
a PyTorch release moves one of them this is the one file to change. Each function says what it
relies on.

``PROBES`` maps a stable probe name to ``(statement, check)``: the statement is one sentence
saying what the diagnoser relies on, the check (no arguments) exercises that on tiny tensors and
returns ``(holds, seen)``. Where the installed torch lacks the API, the check returns
``(False, "not applicable: ...")`` instead of raising. The last probe, ``diagnose-works``, runs
the whole diagnosis on small programs of the kind users write: ``selfcheck`` registers it when
imported (``import inplace_doctor.selfcheck``), after all of these.

Nothing here imports more than torch at import time, and importing it works on a torch that
lacks any of these APIs (``diagnose`` then fails when called, and the probes say why).
"""

import contextlib
import functools
import importlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, NamedTuple

import torch

NOT_APPLICABLE = "not applicable: "

SEQUENCE_NR = "torch._C._autograd._get_sequence_nr"
HOOKS_STACK = "torch._C._autograd._top_saved_tensors_default_hooks"
DISABLE_DISPATCH = "torch._C._DisableTorchDispatch"
DISPATCH_MODE = "torch.utils._python_dispatch.TorchDispatchMode"
CURRENT_DISPATCH_MODE = "torch.utils._python_dispatch._get_current_dispatch_mode"
CUSTOM_FUNCTION_NODE = "torch.autograd.function.BackwardCFunction"
UNTYPED_STORAGE = "torch.Tensor.untyped_storage"
SAVED_TENSOR_DATA = "torch._C._autograd.SavedTensor.data"
SAVED_TENSOR = "torch._C._autograd.SavedTensor"
CREATION_META = "torch._C._autograd._get_creation_meta"
FORCE_DISPATCH_KEYS = "torch._C._ForceDispatchKeyGuard"
MUTATION_ALLOWED_FLAG = "torch.autograd.graph._allow_mutation_on_saved_tensors_enabled"
CHECKPOINT_FRAME = "torch.utils.checkpoint._CheckpointFrame"
_INTERPRETER_STACK = "torch._C._functorch.peek_interpreter_stack"
_CIA = "torch._C.DispatchKey.CompositeImplicitAutograd"
_AD_INPLACE_OR_VIEW = "torch._C.DispatchKey.ADInplaceOrView"


def _resolve(dotted: str) -> Any:
    """The object at a dotted path (``torch.x.y``), or None when the installed torch lacks it."""
    parts = dotted.split(".")
    found = importlib.import_module(parts[0])
    for depth, part in enumerate(parts[1:], 2):
        try:
            found = getattr(found, part)
        except AttributeError:
            try:  # a submodule that was never imported
                found = importlib.import_module(".".join(parts[:depth]))
            except ImportError:
                return None
    return found


def _missing_base(dotted: str) -> type:
    class Missing:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise RuntimeError(f"inplace_doctor needs {dotted}, which torch {torch.__version__} lacks")

    return Missing


# --------------------------------------------------------------------------------------------
# Ops and the dispatcher

# The base class of a mode that sees every aten op: while an instance is entered (``with``),
# its ``__torch_dispatch__(func, types, args, kwargs)`` runs each op, below autograd.
DispatchMode: type = _resolve(DISPATCH_MODE) or _missing_base(DISPATCH_MODE)


def dispatch_disabled() -> AbstractContextManager[None]:
    """A context in which ops bypass every entered dispatch mode (``torch._C._DisableTorchDispatch``)."""
    return torch._C._DisableTorchDispatch()


def use_count(tensor: torch.Tensor) -> int:
    """How many references hold the tensor's C++ object (``Tensor._use_count``): a gradient handed
    on to several places has more than one handed to one place."""
    return int(tensor._use_count())  # type: ignore[attr-defined]


def function_modes_disabled() -> AbstractContextManager[None]:
    """A context in which calls bypass every torch function mode (``torch._C.DisableTorchFunction``)."""
    return torch._C.DisableTorchFunction()


def in_func_transform() -> bool:
    """Is a torch.func transform (grad, vmap, ...) running now (``torch._C._functorch.peek_interpreter_stack``)?"""
    peek = _resolve(_INTERPRETER_STACK)
    return peek is not None and peek() is not None


def is_innermost_dispatch_mode(mode: object) -> bool:
    """Is mode the innermost dispatch mode entered, the one the next op meets first
    (``torch.utils._python_dispatch._get_current_dispatch_mode``)? False where torch lacks it."""
    current = _resolve(CURRENT_DISPATCH_MODE)
    return current is not None and current() is mode


def written_arguments(op: Any) -> tuple[tuple[int, str], ...]:
    """((position, name), ...) of the arguments an aten op writes, ``Tensor(a!)`` in its schema.
    Relies on ``OpOverload._schema``: ``is_mutable`` and each argument's ``alias_info.is_write``."""
    schema = op._schema
    if not schema.is_mutable:
        return ()
    return tuple(
        (i, argument.name)
        for i, argument in enumerate(schema.arguments)
        if argument.alias_info is not None and argument.alias_info.is_write
    )


def views_made_below_the_mode(op: Any) -> bool:
    """Does the op make its views inside a dispatch mode, where autograd cannot see them, under
    ``torch.inference_mode()``? A composite op with no ADInplaceOrView kernel of its own
    (``reshape``, ``flatten``, ``chunk``...) reaches a dispatch mode undecomposed in inference
    mode, and its views are then made with ADInplaceOrView excluded: not views, not requiring grad.

    Relies on ``torch._C._dispatch_has_kernel_for_dispatch_key`` and the two dispatch keys."""
    name, has = op.name(), torch._C._dispatch_has_kernel_for_dispatch_key
    return has(name, _resolve(_CIA)) and not has(name, _resolve(_AD_INPLACE_OR_VIEW))


def views_tracked() -> AbstractContextManager[None]:
    """Inside ``__torch_dispatch__``: ADInplaceOrView no longer excluded, so that the views an op
    makes are made as without the mode (``views_made_below_the_mode``). Relies on
    ``torch._C._ForceDispatchKeyGuard`` and the thread-local dispatch key sets."""
    exclude = torch._C._dispatch_tls_local_exclude_set().remove(_resolve(_AD_INPLACE_OR_VIEW))
    return _resolve(FORCE_DISPATCH_KEYS)(torch._C._dispatch_tls_local_include_set(), exclude)


def mutation_on_saved_tensors_allowed() -> bool:
    """Is ``torch.autograd.graph.allow_mutation_on_saved_tensors()`` in force? Relies on its
    module-level flag (False where torch lacks it)."""
    return bool(getattr(torch.autograd.graph, "_allow_mutation_on_saved_tensors_enabled", False))


# --------------------------------------------------------------------------------------------
# Tensors: versions and memory


def version(tensor: torch.Tensor) -> int:
    """The tensor's version counter (``tensor._version``): in-place writes bump it, views share it.
    Inference tensors have none: 0 for them (nothing can check them)."""
    return 0 if tensor.is_inference() else tensor._version


def bump_version(tensor: torch.Tensor) -> None:
    """Move the tensor's version counter on by one, as an in-place op does
    (``torch.autograd.graph.increment_version``; a no-op for inference tensors)."""
    if not tensor.is_inference():
        torch.autograd.graph.increment_version(tensor)


def is_view(tensor: torch.Tensor) -> bool:
    """Is the tensor a view autograd tracks (``Tensor._is_view()``): one whose base's in-place
    writes can make PyTorch refuse it later (probe ``diagnose-api:version-counter`` covers views)."""
    return bool(tensor._is_view())


def view_origin(tensor: torch.Tensor) -> str:
    """How autograd made a view, which decides whether PyTorch lets it be written in place:
    ``torch._C._autograd._get_creation_meta``'s name in lower case ("default",
    "multi_output_node", "no_grad_mode", "in_custom_function", "inference_mode"); "" for a tensor
    that is not a view, "default" where torch lacks the API."""
    if not is_view(tensor):
        return ""
    get = _resolve(CREATION_META)
    return str(get(tensor).name).lower() if get is not None else "default"


def view_base(tensor: torch.Tensor) -> torch.Tensor | None:
    """The tensor a view was made of (``tensor._base``), None for a tensor that is not a view."""
    return tensor._base


def is_foreach_op(op: Any) -> bool:
    """Is the aten op one of the foreach family (``aten._foreach_add_.List``, ...)? Relies on their
    overload names starting with ``aten._foreach_``. Under any dispatch mode, torch 2.13's in-place
    foreach ops leave version counters alone, which they bump without one."""
    return str(op).startswith("aten._foreach_")


def storage_address(tensor: torch.Tensor) -> int:
    """Address of the tensor's storage (``untyped_storage().data_ptr()``): one for all its views.
    Computed as ``data_ptr() - storage_offset() * element_size()``, which is the same number
    (probe ``diagnose-api:storage-address``) without making a Python storage object at every op."""
    return tensor.data_ptr() - int(tensor.storage_offset()) * tensor.element_size()


def storage_identity(tensor: torch.Tensor) -> int:
    """A number for the tensor's storage object, the same for all its views, different for any
    two live storages (``untyped_storage()._cdata``): tells apart storages without bytes (empty
    tensors, whose data address is 0), which addresses cannot."""
    return int(tensor.untyped_storage()._cdata)


def data_address(tensor: torch.Tensor) -> int:
    """Address of the tensor's first element (``data_ptr()``): storage address + byte offset."""
    return tensor.data_ptr()


# --------------------------------------------------------------------------------------------
# Autograd: sequence numbers, saved-tensor hooks, the nodes of the graph


def sequence_nr() -> int:
    """Autograd's next sequence number (``torch._C._autograd._get_sequence_nr``): each backward node
    created takes it and moves it on by one, so it tells whether a node was created in between."""
    return torch._C._autograd._get_sequence_nr()


def node_sequence_nr(node: Any) -> int:
    """The sequence number a backward node took when created (``node._sequence_nr()``)."""
    return node._sequence_nr()


def innermost_saved_tensors_hooks() -> tuple[Callable[..., Any], Callable[..., Any]] | None:
    """(pack, unpack) of the innermost ``saved_tensors_hooks`` in force, or None outside any
    (``torch._C._autograd._top_saved_tensors_default_hooks(ignore_is_tracing=False)``)."""
    return torch._C._autograd._top_saved_tensors_default_hooks(False)


def is_custom_function_node(node: Any) -> bool:
    """Is the node a custom ``autograd.Function``'s backward (``BackwardCFunction``), i.e. its ctx?"""
    return isinstance(node, torch.autograd.function.BackwardCFunction)


class RawSaved(NamedTuple):
    """One tensor a backward node saved, read without PyTorch's unpacking."""

    attribute: str  # as backward reads it: "_saved_result", "saved_tensors[0]", ...
    packed: object  # what was packed: the pack hook's result, or without hooks the tensor itself
    hooked: bool  # saved under saved_tensors_hooks: an unpack hook will run, no version check
    unpack_hook: object  # the unpack hook (None without hooks); never called here: it may run user code


@functools.cache
def _raw_names(kind: type) -> list[str]:
    """A node type's _raw_saved_* attribute names, once per type (dir() is slow)."""
    return [n for n in dir(kind) if n.startswith("_raw_saved_")]


def raw_saved(node: Any) -> Iterator[RawSaved]:
    """Every saved slot of a backward node, as ``RawSaved``.

    Relies on each saved tensor ``x`` of a built-in node being ``_raw_saved_x`` (a ``SavedTensor``
    with ``.data`` and ``.unpack_hook``) next to the unpacking ``_saved_x``, and on a custom
    Function's node keeping ``save_for_backward``'s tensors in ``_raw_saved_tensors``, unpacked by
    ``saved_tensors``. A slot holding a sequence gives one ``RawSaved`` per element.
    """
    custom = is_custom_function_node(node)
    for raw_name in _raw_names(node.__class__):
        try:
            raws = getattr(node, raw_name)
        except RuntimeError:  # torch 2.10-2.12 refuse a custom Function's slots saved without hooks: unseen
            continue
        unpacked_name = "saved_tensors" if custom else raw_name[len("_raw") :]
        many = isinstance(raws, (tuple, list))
        for i, raw in enumerate(raws if many else [raws]):
            yield RawSaved(f"{unpacked_name}[{i}]" if many else unpacked_name, *raw_saved_tensor(raw))


def raw_saved_tensor(saved: Any) -> tuple[object, bool, object]:
    """``RawSaved`` fields (packed, hooked, unpack_hook) of one ``torch._C._autograd.SavedTensor``."""
    return saved.data, saved.unpack_hook is not None, saved.unpack_hook


def saved_attributes(node: Any) -> list[str]:
    """The attributes through which backward reads a node's saved tensors, in name order
    (``_saved_input``, ``_saved_result``...; a custom Function's ``saved_tensors``): ``raw_saved``'s
    attributes, each once. Read one with ``unpack_saved``."""
    return (
        ["saved_tensors"]
        if is_custom_function_node(node) and _raw_names(node.__class__)
        else [name[len("_raw") :] for name in _raw_names(node.__class__)]
    )


def unpack_saved(node: Any, attribute: str) -> Any:
    """A saved slot (``saved_attributes``) read as backward reads it: unpacked, its unpack hook run
    (user code, maybe), and checked against the tensor's version: a stale one raises RuntimeError."""
    return getattr(node, attribute)


def checkpoint_frame(unpack_hook: object) -> Any:
    """The non-reentrant checkpoint frame an unpack hook belongs to, or None.

    ``torch.utils.checkpoint(..., use_reentrant=False)`` saves nothing of its block: its pack hook
    keeps an empty ``_Holder``, and unpacking one *recomputes the block*. The frame, a free
    variable of that unpack hook (``frame``), keeps what the recomputation starts from: the
    block's inputs, as ``SavedTensor`` objects in ``frame.saved_args``. Relies on those names.
    """
    names = getattr(getattr(unpack_hook, "__code__", None), "co_freevars", ())
    cell = dict(zip(names, getattr(unpack_hook, "__closure__", None) or (), strict=False)).get("frame")
    frame_type = _resolve(CHECKPOINT_FRAME)
    if cell is None or frame_type is None:
        return None
    try:
        frame = cell.cell_contents
    except ValueError:  # an empty cell
        return None
    return frame if isinstance(frame, frame_type) and isinstance(getattr(frame, "saved_args", None), list) else None


def checkpoint_saved_inputs(frame: Any) -> list[tuple[int, Any]]:
    """[(index, SavedTensor)] of the tensors a checkpoint frame saved of its block's inputs."""
    saved_type = _resolve(SAVED_TENSOR)
    return [
        (i, arg) for i, arg in enumerate(frame.saved_args) if saved_type is not None and isinstance(arg, saved_type)
    ]


def ctx_tensors(node: Any) -> list[tuple[str, torch.Tensor]]:
    """(name, tensor) for each tensor a custom Function kept as a ctx attribute, ``ctx.name = t``.
    Relies on a custom Function's backward node being its ctx (``BackwardCFunction``), so that
    the attributes set on ctx are the node's instance attributes."""
    if not is_custom_function_node(node):
        return []
    return [(name, value) for name, value in vars(node).items() if isinstance(value, torch.Tensor)]


# Saved slots a node's backward does not read, by node name: (the attribute telling when, its value
# then, the slots). BatchNorm in training mode normalises with the batch's statistics (save_mean,
# save_invstd): its backward ignores the running statistics it also saved, which the next forward
# in training mode updates in place (a GAN's discriminator run on real, then fake images).
_UNREAD = {"NativeBatchNormBackward0": ("_saved_training", True, ("_saved_running_mean", "_saved_running_var"))}


def unread_slots(node: Any) -> tuple[str, ...]:
    """The saved attributes of node that its backward will not read (``_UNREAD``)."""
    if (rule := _UNREAD.get(node.name())) is None:
        return ()
    flag, value, slots = rule
    return slots if getattr(node, flag, None) is value else ()


def accumulated_variable(node: Any) -> torch.Tensor | None:
    """The leaf tensor an ``AccumulateGrad`` node accumulates into (its ``.variable``), else None."""
    return getattr(node, "variable", None)


# --------------------------------------------------------------------------------------------
# The probes

Check = Callable[[], tuple[bool, str]]
PROBES: dict[str, tuple[str, Check]] = {}


def _not_applicable(what: str) -> tuple[bool, str]:
    return False, f"{NOT_APPLICABLE}{what} is missing from torch {torch.__version__}"


def probe(name: str, statement: str, requires: Sequence[str] = ()) -> Callable[[Check], Check]:
    """Register the decorated check as PROBES[name]; not applicable when a required API is missing."""

    def register(check: Check) -> Check:
        def guarded() -> tuple[bool, str]:
            missing = next((name for name in requires if _resolve(name) is None), None)
            return _not_applicable(missing) if missing else check()

        PROBES[name] = (statement, guarded)
        return check

    return register


def _leaf() -> torch.Tensor:
    return torch.linspace(-1.0, 1.0, 4, requires_grad=True)


def _recording_mode(read_sequence_nr: bool = False) -> Any:
    """A dispatch mode logging (op name, sequence number or None) for every op it sees."""

    class Recording(DispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[tuple[str, int | None]] = []

        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
            self.seen.append((str(func), sequence_nr() if read_sequence_nr else None))
            return func(*args, **(kwargs or {}))

    return Recording()


@probe(
    "diagnose-api:sequence-nr",
    "torch._C._autograd._get_sequence_nr() is the number the next backward node takes, and creating "
    "a node (whose _sequence_nr() is that number) moves it on by one.",
    requires=[SEQUENCE_NR],
)
def _sequence_nr_check() -> tuple[bool, str]:
    x = _leaf()
    before = sequence_nr()
    y = x.exp()
    after = sequence_nr()
    node = y.grad_fn
    assert node is not None
    if not hasattr(node, "_sequence_nr"):
        return _not_applicable(f"{node.name()}._sequence_nr")
    taken = node_sequence_nr(node)
    return (
        taken == before and after == before + 1,
        f"next number {before} before exp, {after} after; ExpBackward0 took {taken}",
    )


@probe(
    "diagnose-api:saved-tensor-hooks-stack",
    "torch._C._autograd._top_saved_tensors_default_hooks(False) gives the (pack, unpack) pair of the "
    "innermost saved_tensors_hooks in force, and None outside any.",
    requires=[HOOKS_STACK],
)
def _hooks_stack_check() -> tuple[bool, str]:
    outer, inner = (lambda t: t, lambda t: t), (lambda t: t, lambda t: t)
    outside = innermost_saved_tensors_hooks()
    with torch.autograd.graph.saved_tensors_hooks(*outer):
        with torch.autograd.graph.saved_tensors_hooks(*inner):
            nested = innermost_saved_tensors_hooks()
        single = innermost_saved_tensors_hooks()
    holds = outside is None and tuple(nested or ()) == inner and tuple(single or ()) == outer
    return holds, (
        f"outside: {outside!r}; nested: the inner pair {tuple(nested or ()) == inner}; "
        f"one level: the outer pair {tuple(single or ()) == outer}"
    )


@probe(
    "diagnose-api:dispatch-mode",
    "An entered torch.utils._python_dispatch.TorchDispatchMode sees every aten op, in-place ones "
    "included, by its overload name such as aten.add_.Tensor.",
    requires=[DISPATCH_MODE],
)
def _dispatch_mode_check() -> tuple[bool, str]:
    x = torch.ones(3)
    with _recording_mode() as mode:
        x.exp().add_(1.0)
    names = [name for name, _ in mode.seen]
    return names == ["aten.exp.default", "aten.add_.Tensor"], f"ops seen: {names}"


@probe(
    "diagnose-api:dispatch-after-autograd",
    "A dispatch mode sees an op after autograd created its backward node: the sequence number read "
    "in __torch_dispatch__ is that node's _sequence_nr() plus one.",
    requires=[DISPATCH_MODE, SEQUENCE_NR],
)
def _dispatch_after_autograd_check() -> tuple[bool, str]:
    x = _leaf()
    with _recording_mode(read_sequence_nr=True) as mode:
        y = x.exp()
    read = dict(mode.seen).get("aten.exp.default")
    taken = node_sequence_nr(y.grad_fn)
    return read == taken + 1, f"read in the mode: {read}; ExpBackward0 took {taken}"


@probe(
    "diagnose-api:disable-dispatch",
    "Ops run inside torch._C._DisableTorchDispatch() bypass an entered dispatch mode, so the "
    "diagnoser's own detach and clone are not logged as the model's ops.",
    requires=[DISPATCH_MODE, DISABLE_DISPATCH],
)
def _disable_dispatch_check() -> tuple[bool, str]:
    x = torch.ones(3)
    with _recording_mode() as mode:
        with dispatch_disabled():
            x.clone()
        x.neg()
    names = [name for name, _ in mode.seen]
    return names == ["aten.neg.default"], f"ops seen: {names} (clone ran with dispatch disabled)"


@probe(
    "diagnose-api:innermost-dispatch-mode",
    "torch.utils._python_dispatch._get_current_dispatch_mode() is the innermost dispatch mode entered, and "
    "leaving and re-entering it inside an outer one (as the diagnoser does around each backward) gives the "
    "ops in between to the outer mode only.",
    requires=[DISPATCH_MODE, CURRENT_DISPATCH_MODE],
)
def _innermost_dispatch_mode_check() -> tuple[bool, str]:
    outer, inner = _recording_mode(), _recording_mode()
    x = torch.ones(3)
    with outer:
        with inner:
            first = is_innermost_dispatch_mode(inner)
            inner.__exit__(None, None, None)
            between = is_innermost_dispatch_mode(outer)
            x.neg()
            inner.__enter__()
            again = is_innermost_dispatch_mode(inner)
            x.exp()
    seen_inner, seen_outer = [name for name, _ in inner.seen], [name for name, _ in outer.seen]
    holds = first and between and again and seen_inner == ["aten.exp.default"] and "aten.neg.default" in seen_outer
    return holds, (
        f"innermost: the inner mode {first}, the outer one once the inner left {between}, the inner one "
        f"again {again}; ops seen by the inner mode {seen_inner}, by the outer one {seen_outer}"
    )


@probe(
    "diagnose-api:inference-mode-views",
    "Under torch.inference_mode(), a composite view op (reshape, chunk) run by a dispatch mode makes a "
    "view autograd tracks, as without the mode, once ADInplaceOrView is no longer excluded.",
    requires=[DISPATCH_MODE, FORCE_DISPATCH_KEYS],
)
def _inference_mode_views_check() -> tuple[bool, str]:
    class Mode(_resolve(DISPATCH_MODE)):  # type: ignore[misc]
        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
            if torch.is_inference_mode_enabled() and views_made_below_the_mode(func):
                with views_tracked():
                    return func(*args, **(kwargs or {}))
            return func(*args, **(kwargs or {}))

    x = _leaf() * 2
    seen = []
    for mode in (contextlib.nullcontext(), Mode()):
        with mode, torch.inference_mode():
            views = [x.reshape(2, 2), x.chunk(2)[0]]
        seen.append([(v._is_view(), v.requires_grad, view_origin(v)) for v in views])
    return seen[0] == seen[1], f"(is a view, requires grad, origin) without a mode {seen[0]}, with one {seen[1]}"


@probe(
    "diagnose-api:mutation-allowed-flag",
    "torch.autograd.graph._allow_mutation_on_saved_tensors_enabled is True inside "
    "allow_mutation_on_saved_tensors() and False outside it.",
    requires=[MUTATION_ALLOWED_FLAG],
)
def _mutation_allowed_check() -> tuple[bool, str]:
    before = mutation_on_saved_tensors_allowed()
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        inside = mutation_on_saved_tensors_allowed()
    return (not before and inside), f"outside: {before}, inside: {inside}"


@probe(
    "diagnose-api:op-schema-writes",
    "An aten op's _schema is mutable exactly when the op writes a tensor argument, and marks each "
    "written argument with alias_info.is_write (Tensor(a!)).",
)
def _op_schema_check() -> tuple[bool, str]:
    aten = torch.ops.aten
    ops = {"add_.Tensor": aten.add_.Tensor, "add.Tensor": aten.add.Tensor, "add.out": aten.add.out}
    if not all(hasattr(op, "_schema") for op in ops.values()):
        return _not_applicable("OpOverload._schema")
    written = {name: [argument for _, argument in written_arguments(op)] for name, op in ops.items()}
    return written == {"add_.Tensor": ["self"], "add.Tensor": [], "add.out": ["out"]}, f"written: {written}"


@probe(
    "diagnose-api:raw-saved-slots",
    "A built-in backward node keeps each saved tensor as _raw_saved_<name>, whose .data is what was "
    "packed and whose unpack_hook (the hook itself) is set only under saved_tensors_hooks, next to the "
    "unpacking _saved_<name>.",
    requires=[SAVED_TENSOR_DATA],
)
def _raw_saved_check() -> tuple[bool, str]:
    x = _leaf()
    plain = x.tanh()
    marker, unpacked = object(), torch.zeros(1)

    def unpack_hook(packed: object) -> torch.Tensor:
        return unpacked

    with torch.autograd.graph.saved_tensors_hooks(lambda t: marker, unpack_hook):
        hooked = x.tanh()
    if not hasattr(plain.grad_fn, "_raw_saved_result"):
        return _not_applicable("TanhBackward0._raw_saved_result")
    (bare,), (packed,) = raw_saved(plain.grad_fn), raw_saved(hooked.grad_fn)
    keeps_result = isinstance(bare.packed, torch.Tensor) and data_address(bare.packed) == data_address(plain)
    unpacks = packed.unpack_hook is unpack_hook  # the hook itself, readable without calling it
    holds = (
        bare.attribute == packed.attribute == "_saved_result"
        and keeps_result
        and not bare.hooked
        and packed.packed is marker
        and packed.hooked
        and unpacks
    )
    return holds, (
        f"slots {bare.attribute} / {packed.attribute}; without hooks: packed is the result "
        f"{keeps_result}, hooked {bare.hooked}; with hooks: packed is the pack hook's object "
        f"{packed.packed is marker}, hooked {packed.hooked}, its unpack hook readable {unpacks}"
    )


@probe(
    "diagnose-api:custom-function-node",
    "A custom autograd.Function's backward node is a BackwardCFunction that is also its ctx: tensors "
    "set as ctx attributes are its instance attributes, and save_for_backward's are in "
    "_raw_saved_tensors.",
    requires=[CUSTOM_FUNCTION_NODE],
)
def _custom_function_check() -> tuple[bool, str]:
    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
            ctx.kept = x
            ctx.save_for_backward(x)
            return 2 * x

        @staticmethod
        def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
            return 2 * grad

    node = Twice.apply(_leaf() * 1).grad_fn
    attributes = [slot.attribute for slot in raw_saved(node)]
    kept = [name for name, _ in ctx_tensors(node)]
    holds = is_custom_function_node(node) and attributes == ["saved_tensors[0]"] and kept == ["kept"]
    return holds, (
        f"{type(node).__name__}: custom node {is_custom_function_node(node)}, "
        f"saved slots {attributes}, ctx tensors {kept}"
    )


@probe(
    "diagnose-api:version-counter",
    "tensor._version counts in-place writes, is shared by the views of one tensor, and does not move "
    "for a write through .data.",
)
def _version_counter_check() -> tuple[bool, str]:
    t = _leaf() * 1
    first, second = t[:2], t[2:]
    start = version(t)
    first.mul_(2.0)
    after_view_write = version(t), version(second)
    t.data.add_(1.0)
    after_data_write = version(t)
    holds = (
        after_view_write == (start + 1, start + 1)
        and after_data_write == start + 1
        and is_view(first)
        and not is_view(t)
    )
    return holds, (
        f"versions (tensor, sibling view): {start} before, {after_view_write} after a write to "
        f"one view; {after_data_write} after a write through .data"
    )


@probe(
    "diagnose-api:refused-before-dispatch",
    "PyTorch refuses an in-place write to a leaf that requires grad, or to one of several views an op "
    "returned, before a dispatch mode sees the op, and torch._C._autograd._get_creation_meta tells such a "
    "view (MULTI_OUTPUT_NODE) from a plain one (DEFAULT).",
    requires=[DISPATCH_MODE, CREATION_META],
)
def _refused_before_dispatch_check() -> tuple[bool, str]:
    leaf = _leaf()
    first, _ = (leaf * 1).split(2)
    refused = []
    with _recording_mode() as mode:
        for target in (leaf, first):
            try:
                target.mul_(2.0)
            except RuntimeError:
                refused.append(True)
    origins = view_origin(first), view_origin(leaf[:2]), view_origin(leaf)
    holds = len(refused) == 2 and mode.seen == [] and origins == ("multi_output_node", "default", "")
    return holds, f"refused writes {len(refused)} of 2; ops the mode saw {mode.seen}; view origins {origins}"


@probe(
    "diagnose-api:storage-address",
    "untyped_storage().data_ptr() is one address for every view of a storage, and data_ptr() is that "
    "address plus storage_offset() times element_size().",
    requires=[UNTYPED_STORAGE],
)
def _storage_address_check() -> tuple[bool, str]:
    base = torch.arange(6.0).reshape(2, 3)
    view = base[:, 1:]
    address = base.untyped_storage().data_ptr()
    same_storage = view.untyped_storage().data_ptr() == address
    offset = data_address(view) - address
    expected = view.storage_offset() * view.element_size()
    computed = storage_address(view) == storage_address(base) == address
    return same_storage and offset == expected and computed, (
        f"one storage address for base and view: {same_storage}; view's byte offset {offset} (expected {expected}); "
        f"storage_address() gives it for both: {computed}"
    )


@probe(
    "diagnose-api:accumulate-grad-variable",
    "A leaf's AccumulateGrad node, reached through next_functions, holds that leaf as .variable.",
)
def _accumulate_grad_check() -> tuple[bool, str]:
    x = _leaf()
    exp_node = x.exp().grad_fn
    assert exp_node is not None
    node = exp_node.next_functions[0][0]
    holds = accumulated_variable(node) is x
    return holds, f"{type(node).__name__}.variable is the leaf: {holds}"
