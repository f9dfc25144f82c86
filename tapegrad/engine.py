"""A tape-based reverse-mode autograd over numpy, in the spirit of phase 8 of the course.

Every operation run while a ``Tape`` is active appends one ``Record`` to it: the values it
read, the value it produced, the tensors its backward rule needs (``Saved``) and that rule.
``backward(loss)`` walks the tape from the last record to the first, handing each record the
gradient of its output and accumulating the gradients of its inputs.

Saved tensors are references, not copies (as in PyTorch: copying every activation would
double the memory). So an in-place write (``Tensor.add_``) made after a record saved a tensor
changes what that record's backward reads. PyTorch's defence is a version counter: every
tensor counts the in-place writes to it, a saved tensor remembers the count at save time, and
unpacking compares the two. Here the counting is always on; the remembering and comparing are
the option ``Tape(check_versions=True)``. With ``check_versions=False`` nothing notices and the
gradients come out wrong. The lines that make the defence end with ``# version counter``.
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Array = Any  # a numpy array (numpy's own array types are more than this demo needs)
Rule = Callable[..., tuple[Array, ...]]  # (grad_out, *saved arrays) -> one gradient per input

_active: list["Tape"] = []  # the stack of tapes entered with `with Tape(): ...`


class Tape:
    """The list of records of one forward pass; use as ``with Tape() as tape: ...``."""

    def __init__(self, check_versions: bool = False) -> None:
        self.check_versions = check_versions
        self.records: list[Record] = []

    def __enter__(self) -> "Tape":
        _active.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _active.remove(self)


class Value:
    """One value in the graph: a tensor's contents between two writes (an in-place op gives its tensor
    a new Value: the gradients of the contents before and after the write are different quantities)."""

    def __init__(self, leaf: "Tensor | None" = None) -> None:
        self.leaf = leaf  # the tensor to receive .grad, for a leaf that requires grad


class Saved:
    """A tensor a record keeps for its backward: a reference to it, not a copy."""

    def __init__(self, tensor: "Tensor", tape: Tape) -> None:
        self.tensor = tensor
        self.version = tensor.version if tape.check_versions else None  # version counter

    def unpack(self, record: "Record") -> Array:
        if self.version is not None and self.tensor.version != self.version:  # version counter
            raise RuntimeError(self.stale_message(record))  # version counter
        return self.tensor.data

    def stale_message(self, record: "Record") -> str:
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [array {list(self.tensor.shape)}], saved by {record.op}, "
            f"is at version {self.tensor.version}; expected version {self.version} instead"
        )


class Record:
    def __init__(self, op: str, inputs: list[Value | None], output: Value, saved: list[Saved], backward: Rule) -> None:
        self.op = op  # a name, for messages
        self.inputs = inputs  # the Values read (None for an input that needs no gradient)
        self.output = output  # the Value produced
        self.saved = saved  # [Saved], unpacked and passed to backward after the output gradient
        self.backward = backward  # (grad_out, *saved arrays) -> one gradient per input


class Tensor:
    def __init__(self, data: object, requires_grad: bool = False) -> None:
        self.data = np.array(data, dtype=np.float64)
        self.requires_grad = requires_grad
        self.grad: Array | None = None
        self.version = 0  # version counter: bumped by every in-place write
        self.value = Value(leaf=self if requires_grad else None)
        self.tape: Tape | None = None  # the tape that recorded the op producing this tensor

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    def __repr__(self) -> str:
        return f"Tensor(shape={list(self.shape)}, requires_grad={self.requires_grad})"

    # out of place: each returns a new tensor
    def __add__(self, other: object) -> "Tensor":
        return add(self, other)

    def __mul__(self, other: object) -> "Tensor":
        return mul(self, other)

    def __matmul__(self, other: object) -> "Tensor":
        return matmul(self, other)

    # in place: writes into self.data, the buffer saved references point to
    def add_(self, other: object) -> "Tensor":
        other = as_tensor(other)
        tape = _recording(self, other)
        before = self.value if self.requires_grad else None
        self.data += other.data
        self.version += 1  # version counter
        if tape:
            self.requires_grad, self.tape, self.value = True, tape, Value()
            read = [before, other.value if other.requires_grad else None]
            tape.records.append(Record("add_", read, self.value, [], lambda g: (g, unbroadcast(g, other.shape))))
        return self

    def backward(self) -> None:
        backward(self)


def as_tensor(x: object) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor(x)


def _recording(*tensors: Tensor) -> Tape | None:
    """The active tape if the op's result needs a gradient, else None."""
    if _active and any(t.requires_grad for t in tensors):
        return _active[-1]
    return None


def _op(
    name: str,
    inputs: Sequence[Tensor],
    out_data: Array,
    saved: Sequence[Tensor],
    backward: Rule,
    save_output: bool = False,
) -> Tensor:
    """The output tensor and, when recording, the op's record (saved: the inputs its backward reads;
    save_output: it reads the output too, last)."""
    out = Tensor(out_data)
    tape = _recording(*inputs)
    if tape:
        out.requires_grad, out.tape, out.value = True, tape, Value()
        values = [t.value if t.requires_grad else None for t in inputs]
        kept = [Saved(t, tape) for t in saved] + ([Saved(out, tape)] if save_output else [])
        tape.records.append(Record(name, values, out.value, kept, backward))
    return out


def unbroadcast(grad: Array, shape: tuple[int, ...]) -> Array:
    """Sum a gradient back down to the shape of an input that numpy broadcast."""
    while grad.ndim > len(shape):
        grad = grad.sum(0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis, keepdims=True)
    return grad


def add(a: object, b: object) -> Tensor:
    a, b = as_tensor(a), as_tensor(b)
    return _op("add", [a, b], a.data + b.data, [], lambda g: (unbroadcast(g, a.shape), unbroadcast(g, b.shape)))


def mul(a: object, b: object) -> Tensor:
    a, b = as_tensor(a), as_tensor(b)
    return _op(
        "mul",
        [a, b],
        a.data * b.data,
        [a, b],
        lambda g, a_, b_: (unbroadcast(g * b_, a_.shape), unbroadcast(g * a_, b_.shape)),
    )


def matmul(a: object, b: object) -> Tensor:
    a, b = as_tensor(a), as_tensor(b)
    return _op(
        "matmul",
        [a, b],
        a.data @ b.data,
        [a, b],
        lambda g, a_, b_: (
            unbroadcast(g @ np.swapaxes(b_, -1, -2), a_.shape),
            unbroadcast(np.swapaxes(a_, -1, -2) @ g, b_.shape),
        ),
    )


def tanh(x: Tensor) -> Tensor:
    """Its backward reads the saved output y: d tanh(x)/dx = 1 - y**2."""
    return _op("tanh", [x], np.tanh(x.data), [], lambda g, y: (g * (1 - y * y),), save_output=True)


def layer_norm(x: Tensor, eps: float = 1e-5) -> Tensor:
    """(x - mean) / sqrt(var + eps) over the last axis; its backward reads the saved input x."""

    def normalize(x_: Array) -> tuple[Array, Array]:
        mean = x_.mean(-1, keepdims=True)
        rstd = 1 / np.sqrt(x_.var(-1, keepdims=True) + eps)
        return (x_ - mean) * rstd, rstd

    def backward(g: Array, x_: Array) -> tuple[Array]:
        xhat, rstd = normalize(x_)  # recomputed from the saved input
        return (rstd * (g - g.mean(-1, keepdims=True) - xhat * (g * xhat).mean(-1, keepdims=True)),)

    return _op("layer_norm", [x], normalize(x.data)[0], [x], backward)


def sum(x: Tensor) -> Tensor:  # noqa: A001 - the op's name, as in torch.sum
    return _op("sum", [x], x.data.sum(), [], lambda g: (np.broadcast_to(g, x.shape).copy(),))


def backward(loss: Tensor) -> None:
    """Walk the tape of ``loss`` backwards; set ``.grad`` on every leaf that requires grad."""
    if loss.data.size != 1:
        raise ValueError("backward needs a scalar loss")
    if loss.tape is None:
        raise ValueError("this tensor was not produced on a tape: nothing to walk back")
    grads = {loss.value: np.ones_like(loss.data)}
    for record in reversed(loss.tape.records):
        grad_out = grads.pop(record.output, None)
        if grad_out is None:
            continue  # nothing downstream needed this value
        arrays = [saved.unpack(record) for saved in record.saved]
        for value, grad in zip(record.inputs, record.backward(grad_out, *arrays), strict=True):
            if value is not None:
                grads[value] = grads[value] + grad if value in grads else grad
    for value, grad in grads.items():
        if value.leaf is not None:
            value.leaf.grad = grad if value.leaf.grad is None else value.leaf.grad + grad
