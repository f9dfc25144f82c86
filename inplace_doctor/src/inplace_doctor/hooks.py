"""Gradient hooks that write the gradient they were handed in place.

PyTorch's documentation forbids it (a hook "should not modify its argument"; it may return a new
gradient instead): one gradient tensor is handed to several places (an add hands the same tensor
to both of its inputs), so a hook that writes it changes another branch's gradient, silently.

While a session runs, the hooks the program registers (``Tensor.register_hook``, a module's
backward pre-hook) are wrapped: when one is handed a gradient that another place holds too (more
references than such a gradient has alone, ``alone``), a dispatch mode (``HookWrites``) notes
each op that writes its memory while the hook runs, at the hook's line. A write to a gradient
nothing else reads changes no other gradient, and is left alone. Hooks registered by torch
itself, or before the session, are left as they are.
"""

import functools
import sys
from collections.abc import Callable
from typing import Any

import torch

from . import torch_private
from .location import Location, is_internal, user_frame, user_stack
from .memory import Memory, tensors_in
from .recorder import Op

Note = Callable[[str, Op, Location], None]  # (what kind of hook, the write, where it was registered)

# (owner, method, what the hook is called, which of the hook's arguments are gradients)
HOOKED: list[tuple[Any, str, str, Callable[[tuple], Any]]] = [
    (torch.Tensor, "register_hook", "tensor", lambda args: args[:1]),
    (torch.nn.Module, "register_full_backward_pre_hook", "module backward pre-", lambda args: args[1:]),
]


@functools.cache
def alone(kind: str) -> int:
    """How many references hold a gradient that a hook of this kind is handed and that nothing else
    will read, measured once on a graph where none is shared (the count differs by hook kind and
    release). A gradient held by more is also another branch's: writing it changes that one too."""
    seen: list[int] = []

    def probe(*args: Any) -> None:
        seen.extend(torch_private.use_count(t) for t in tensors_in(list(HOOKS[kind](args))))

    with torch.enable_grad(), torch_private.dispatch_disabled():
        x = torch.ones(2, 3, requires_grad=True)
        if kind == "tensor":
            h = torch.tanh(x @ torch.ones(3, 3))
            torch.Tensor.register_hook(h, probe)
            loss = (h @ torch.ones(3, 1)).sum()
        else:
            layer = torch.nn.Linear(3, 3)
            torch.nn.Module.register_full_backward_pre_hook(layer, probe)
            loss = torch.tanh(layer(x)).sum()
        original = getattr(torch.autograd.backward, "__wrapped__", torch.autograd.backward)
        original([loss])
    return max(seen)


HOOKS = {kind: of for _, _, kind, of in HOOKED}


class HookWrites(torch_private.DispatchMode):
    """The first op that writes one of the gradients a hook was handed, at the hook's line."""

    def __init__(self, gradients: list[torch.Tensor]):
        super().__init__()
        self.memories = [m for t in gradients if (m := Memory.of(t)) is not None]
        self.write: Op | None = None

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        written = torch_private.written_arguments(func)
        if written and self.write is None:
            for position, name in written:
                value = args[position] if position < len(args) else kwargs.get(name)
                memories = [m for t in tensors_in(value) if (m := Memory.of(t)) is not None]
                if any(m.overlaps(g) for m in memories for g in self.memories):
                    site, callers, _ = user_stack()
                    location = Location(*site, "", callers=callers)
                    self.write = Op(-1, str(func), -1, memories, location=location, grad_mode=torch.is_grad_enabled())
                    break
        return func(*args, **kwargs)


def wrap_registrations(set_attribute: Callable[[Any, str, Any], None], active: Callable[[], bool], note: Note) -> None:
    """Replace each registration method of HOOKED (through set_attribute, which restores it later)
    with one that registers the user's hook wrapped: its writes to its gradients are noted."""
    for owner, method, kind, gradients_of in HOOKED:
        original = getattr(owner, method)

        def register(
            self: Any, hook: Any, *args: Any, _original: Any = original, _kind: str = kind, _of: Any = gradients_of
        ) -> Any:
            caller = sys._getframe(1).f_code.co_filename
            if is_internal(caller) or not callable(hook):  # torch's own hooks (full backward hooks use some)
                return _original(self, hook, *args)
            return _original(self, _watched(hook, _kind, _of, Location(*user_frame(), ""), active, note), *args)

        set_attribute(owner, method, functools.wraps(original)(register))


def _watched(
    hook: Any, kind: str, gradients_of: Callable[[tuple], Any], registered: Location, active: Any, note: Note
) -> Any:
    @functools.wraps(hook)
    def watched(*args: Any) -> Any:
        if not active():
            return hook(*args)
        gradients = tensors_in(list(gradients_of(args)))
        shared = [t for t in gradients if torch_private.use_count(t) > alone(kind)]
        if not shared:  # a write to a gradient nothing else reads changes nothing else
            return hook(*args)
        writes = HookWrites(shared)
        with writes:
            result = hook(*args)
        if writes.write is not None:
            note(kind, writes.write, registered)
        return result

    return watched
