"""In-place writes PyTorch refuses at the write itself, before any op reaches the dispatcher: a
leaf that requires grad, one of several views an op returned, a view made under ``no_grad`` or
returned by a custom Function, an inference tensor, ``resize_`` or ``out=`` of a tensor that
requires grad. A torch function mode (``RefusalWatch``) sees the call raise; the written tensor's
state, read as autograd's checks read it (``refused_target``), says what was refused.
"""

import inspect
from collections.abc import Callable
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from . import torch_private
from .findings import (
    DETACHED_VIEW,
    FUNCTION_VIEW,
    INFERENCE,
    INFERENCE_VIEW,
    LEAF,
    NO_GRAD_VIEW,
    OUT_ARGUMENT,
    RESIZED,
    SEVERAL_VIEWS,
    VIEW_OF_LEAF,
)
from .memory import tensors_in
from .recorder import Recorder

_VIEW_ORIGINS = {"multi_output_node": SEVERAL_VIEWS, "no_grad_mode": NO_GRAD_VIEW, "in_custom_function": FUNCTION_VIEW}
_ANY_GRAD_MODE = {"inference_mode": INFERENCE_VIEW}  # refused with grad mode on or off
_INPLACE_DUNDERS = {f"__i{op}__" for op in "add sub mul truediv floordiv mod pow matmul and or xor".split()}
_NOT_WRITES = {"requires_grad_", "retain_grad", "share_memory_"}


def refused_target(func: Any, args: tuple, kwargs: dict) -> tuple[str, torch.Tensor] | None:
    """(what it is, the tensor) for an in-place call PyTorch refused, read from the written
    tensor's state as autograd's checks read it, not from the error's words; None when the call
    writes nothing in place or its tensor is in no state PyTorch refuses."""
    name = getattr(func, "__name__", "")
    tensors = tensors_in(list(args))
    if kwargs.get("out") is not None:
        written = tensors_in(kwargs["out"])
        refused = torch.is_grad_enabled() and any(t.requires_grad for t in tensors)
        return (OUT_ARGUMENT, written[0]) if refused and written else None
    writes = name in _INPLACE_DUNDERS or name == "__setitem__" or (name.endswith("_") and not name.endswith("__"))
    if not tensors or name in _NOT_WRITES or not (writes or _inplace_flag(func, args, kwargs)):
        return None
    tensor, grad = tensors[0], torch.is_grad_enabled()
    origin = torch_private.view_origin(tensor)
    base = torch_private.view_base(tensor) if origin == "default" else None
    if tensor.is_inference() and not torch.is_inference_mode_enabled():
        return INFERENCE, tensor
    if name.startswith("resize") and tensor.requires_grad:
        return RESIZED, tensor
    if name == "detach_" and origin:
        return DETACHED_VIEW, tensor
    if origin in _ANY_GRAD_MODE and tensor.requires_grad and not torch.is_inference_mode_enabled():
        return _ANY_GRAD_MODE[origin], tensor
    if grad and origin in _VIEW_ORIGINS:
        return _VIEW_ORIGINS[origin], tensor
    if grad and base is not None and base.is_leaf and base.requires_grad:
        return VIEW_OF_LEAF, tensor
    if grad and tensor.is_leaf and tensor.requires_grad:
        return LEAF, tensor
    return None


def _inplace_flag(func: Any, args: tuple, kwargs: dict) -> bool:
    """Was func called with ``inplace=True`` (``F.relu(x, inplace=True)``, nn.Dropout's positional one)?"""
    try:
        return inspect.signature(func).bind(*args, **kwargs).arguments.get("inplace") is True
    except (TypeError, ValueError):
        return False


class RefusalWatch(TorchFunctionMode):
    """Sees each torch call the program makes, above autograd, where PyTorch refuses in-place
    writes before any op reaches the dispatcher: an in-place call that raises, when no write of
    it was dispatched (or its tensor is an inference one, refused below), is checked for a state
    PyTorch refuses (``refused_target``). The error goes on as it would have."""

    def __init__(self, recorder: Recorder, note: Callable[[RuntimeError, Any, tuple, dict, bool], None]):
        super().__init__()
        self.recorder, self.note = recorder, note  # note(error, func, args, kwargs, dispatched)

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        recorder = self.recorder
        writes = recorder.writes
        try:
            return func(*args, **kwargs)
        except RuntimeError as error:
            if not recorder.paused:
                self.note(error, func, args, kwargs, recorder.writes != writes)
            raise
