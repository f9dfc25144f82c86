"""torch.func's grad, grad_and_value, vjp and jacrev, run under plain autograd while a session runs.

torch.func refuses saved-tensor hooks, which the diagnoser records through. So, as compiled
code runs eagerly under it, these transforms run the function under plain autograd instead: the
differentiated inputs become fresh tensors that require grad (copies, so the function may write
them in place as under torch.func), and the gradients come from ``torch.autograd.grad``, which
the session examines like any backward. The values are those torch.func computes. A transform
called inside another one (``vmap(grad(f))``) runs as PyTorch runs it.
"""

import functools
from collections.abc import Callable, Iterator
from typing import Any

import torch

from . import torch_private
from .memory import tensors_in


def _mapped(value: Any, replace: Callable[[torch.Tensor], Any]) -> Any:
    """value with each tensor (in lists, tuples, named tuples and dicts) replaced by replace(tensor)."""
    if isinstance(value, torch.Tensor):
        return replace(value)
    if isinstance(value, (list, tuple)):
        items = [_mapped(v, replace) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return type(value)((k, _mapped(v, replace)) for k, v in value.items())
    return value


def _tracked(value: Any, leaves: list[torch.Tensor]) -> Any:
    """value with each tensor replaced by a copy that autograd tracks; the leaves appended."""

    def track(tensor: torch.Tensor) -> torch.Tensor:
        leaf = tensor.detach().requires_grad_(True)
        leaves.append(leaf)
        return leaf.clone()

    return _mapped(value, track)


def _shaped(value: Any, grads: Iterator[torch.Tensor]) -> Any:
    """The gradients, in value's structure."""
    return _mapped(value, lambda _: next(grads))


def _gradients(
    outputs: list[torch.Tensor], leaves: list[torch.Tensor], cotangents: Any = None, examined: bool = True
) -> list[torch.Tensor]:
    """The gradients, through the session's examined ``torch.autograd.grad`` or (``examined=False``:
    a Jacobian's further rows, whose graph was examined once) the one it wraps."""
    if examined:
        found = torch.autograd.grad(outputs, leaves, cotangents, retain_graph=True, allow_unused=True)
    else:  # the session's function mode would hand the call back to the examined grad
        grad = getattr(torch.autograd.grad, "__wrapped__", torch.autograd.grad)
        with torch_private.function_modes_disabled():
            found = grad(outputs, leaves, cotangents, retain_graph=True, allow_unused=True)
    return [torch.zeros_like(leaf) if g is None else g for leaf, g in zip(leaves, found, strict=True)]


def _run(func: Callable, argnums: int | tuple[int, ...], args: tuple, kwargs: dict) -> tuple[Any, list, list]:
    """(func's result, the differentiated arguments as given, their leaves in order)."""
    numbers = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    passed: list[Any] = list(args)
    leaves: list[torch.Tensor] = []
    for n in numbers:
        passed[n] = _tracked(args[n], leaves)
    with torch.enable_grad():
        return func(*passed, **kwargs), [args[n] for n in numbers], leaves


def _detached(value: Any) -> Any:
    return _mapped(value, lambda t: t.detach())


def grad_and_value(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    def transformed(*args: Any, **kwargs: Any) -> Any:
        result, given, leaves = _run(func, argnums, args, kwargs)
        output, aux = result if has_aux else (result, None)
        grads = _shaped(given, iter(_gradients([output], leaves)))
        gradient = grads[0] if isinstance(argnums, int) else tuple(grads)
        value = output.detach()
        return (gradient, (value, _detached(aux))) if has_aux else (gradient, value)

    return transformed


def grad(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    def transformed(*args: Any, **kwargs: Any) -> Any:
        gradient, value = grad_and_value(func, argnums, has_aux)(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return transformed


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    result, _, leaves = _run(func, tuple(range(len(primals))), primals, {})
    output, aux = result if has_aux else (result, None)

    def vjp_fn(cotangents: Any) -> tuple:
        return _shaped(primals, iter(_gradients(tensors_in(output), leaves, tensors_in(cotangents))))

    return (_detached(output), vjp_fn, _detached(aux)) if has_aux else (_detached(output), vjp_fn)


def jacrev(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    def transformed(*args: Any) -> Any:
        result, given, leaves = _run(func, argnums, args, {})
        output, aux = result if has_aux else (result, None)
        _gradients([output], leaves, [torch.ones_like(output)])  # examined once, from every output
        flat_output = output.reshape(-1)
        rows = [_gradients([flat_output[i]], leaves, examined=False) for i in range(output.numel())]
        jacobians = [
            torch.stack([row[k] for row in rows]).reshape(*output.shape, *leaf.shape) for k, leaf in enumerate(leaves)
        ]
        per = _shaped(given, iter(jacobians))
        jacobian = per[0] if isinstance(argnums, int) else tuple(per)
        return (jacobian, _detached(aux)) if has_aux else jacobian

    return transformed


def eager(original: Callable, replacement: Callable) -> Callable:
    """The transform that runs under plain autograd, unless another transform is running when the
    function it returns is called (``vmap(grad(f))``): then PyTorch's own."""

    def pick() -> Callable:
        return original if torch_private.in_func_transform() else replacement

    @functools.wraps(original)
    def chosen(*args: Any, **kwargs: Any) -> Any:
        if original.__name__ == "vjp":  # called with its inputs: decided now
            return pick()(*args, **kwargs)
        return lambda *inputs, **named: pick()(*args, **kwargs)(*inputs, **named)

    return chosen


def lifting(vmap: Callable, lifted: Callable[[], Any]) -> Callable:
    """vmap, with the session's saved-tensor hooks lifted while the function it returns runs (vmap
    refuses them): the program runs as without the diagnoser; what it saves meanwhile is not recorded."""

    @functools.wraps(vmap)
    def lifting_vmap(*args: Any, **kwargs: Any) -> Any:
        vectorised = vmap(*args, **kwargs)

        @functools.wraps(vectorised)
        def run(*inputs: Any, **named: Any) -> Any:
            with lifted():
                return vectorised(*inputs, **named)

        return run

    return lifting_vmap


REPLACEMENTS: dict[str, Callable[..., Any]] = {
    "grad": grad,
    "grad_and_value": grad_and_value,
    "vjp": vjp,
    "jacrev": jacrev,
}
