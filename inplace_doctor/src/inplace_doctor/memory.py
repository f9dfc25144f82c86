"""Memory: which bytes of which storage a tensor covers, and whether two tensors share any."""

import math
from typing import Any, NamedTuple

import torch

from . import torch_private


def tensors_in(value: Any) -> list[torch.Tensor]:
    """Every tensor in value (nested tuples, lists and dicts), in order."""
    if isinstance(value, torch.Tensor):
        return [value]
    found: list[torch.Tensor] = []
    for item in value.values() if isinstance(value, dict) else value if isinstance(value, (tuple, list)) else ():
        if isinstance(item, torch.Tensor):
            found.append(item)
        elif isinstance(item, (tuple, list, dict)):
            found.extend(tensors_in(item))
    return found


_PLAIN_DISPATCH = torch.Tensor.__torch_dispatch__


def kind_unexamined(t: torch.Tensor) -> str:
    """What kind of tensor it is when the diagnoser cannot read its bytes ("a nested tensor", ...);
    "" for a strided tensor with memory of its own, whose writes and values it compares."""
    if t.is_nested:
        return "a nested tensor"
    if t.layout != torch.strided:
        return f"a {str(t.layout).removeprefix('torch.').replace('_', ' ')} tensor"
    if t.is_meta:
        return "a meta tensor"
    if type(t).__torch_dispatch__ is not _PLAIN_DISPATCH:  # a wrapper (DTensor...): its bytes live elsewhere
        return f"a {type(t).__name__} (a tensor subclass with its own __torch_dispatch__)"
    return ""


class Memory(NamedTuple):
    """The bytes a tensor covers: device, storage address, byte offset, shape and byte strides."""

    storage: int
    offset: int
    shape: tuple
    strides: tuple
    itemsize: int
    device: str = "cpu"

    @classmethod
    def of(cls, t: torch.Tensor) -> "Memory | None":
        """None for tensors without strided memory of their own (``kind_unexamined``)."""
        try:
            if kind_unexamined(t):
                return None
            size, shape, device = t.element_size(), tuple(t.shape), "cpu" if t.is_cpu else str(t.device)
            strides = tuple(s * size for s in t.stride())
            if t.numel() == 0:  # no bytes, but a version counter: its storage is told apart by identity
                return cls(-torch_private.storage_identity(t), 0, shape, strides, size, device)
            offset = int(t.storage_offset()) * size  # storage_address, without asking twice
            return cls(torch_private.data_address(t) - offset, offset, shape, strides, size, device)
        except (RuntimeError, NotImplementedError):
            return None

    @property
    def key(self) -> tuple[str, int]:
        """Which storage: two tensors can share bytes only if their keys are equal."""
        return self.device, self.storage

    @property
    def end(self) -> int:
        return self.offset + sum((n - 1) * s for n, s in zip(self.shape, self.strides, strict=False)) + self.itemsize

    def overlaps(self, other: "Memory") -> bool:
        if self.key != other.key:
            return False
        if self.storage < 0:  # an empty tensor's storage: a write to it is a write over it
            return True
        if self.end <= other.offset or other.end <= self.offset:
            return False
        if self == other or (_dense(self) and _dense(other)):
            return True
        # The byte ranges interleave (e.g. q and k, two column blocks of one qkv output): mark
        # this tensor's bytes in a scratch buffer and look whether the other one touches any.
        start = min(self.offset, other.offset)
        scratch = torch.zeros(max(self.end, other.end) - start, dtype=torch.bool)
        self._bytes(scratch, start).fill_(True)
        return bool(other._bytes(scratch, start).any())

    def _bytes(self, scratch: torch.Tensor, start: int) -> torch.Tensor:
        return scratch.as_strided(self.shape + (self.itemsize,), self.strides + (1,), self.offset - start)


def _dense(memory: Memory) -> bool:
    """Does the tensor cover every byte between its first and its last (so any overlap of the
    ranges is an overlap of bytes)?"""
    return memory.end - memory.offset == memory.itemsize * math.prod(memory.shape) and 0 not in memory.strides


def alias_of(t: torch.Tensor) -> tuple | None:
    """Identifies a tensor by its memory and layout, whichever Python object wraps it."""
    try:
        return torch_private.data_address(t), t.shape, t.stride()
    except (RuntimeError, NotImplementedError):
        return None
