"""Memory: which bytes of which storage a tensor covers, and whether two tensors share any."""

from dataclasses import dataclass

import torch

from . import torch_private


def tensors_in(value):
    """Every tensor in value (nested tuples, lists and dicts), in order."""
    if isinstance(value, torch.Tensor):
        return [value]
    found = []
    for item in value.values() if isinstance(value, dict) else value if isinstance(value, (tuple, list)) else ():
        if isinstance(item, torch.Tensor):
            found.append(item)
        elif isinstance(item, (tuple, list, dict)):
            found.extend(tensors_in(item))
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
            return cls(torch_private.storage_address(t), t.storage_offset() * size, tuple(t.shape),
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


def alias_of(t):
    """Identifies a tensor by its memory and layout, whichever Python object wraps it."""
    try:
        return torch_private.data_address(t), t.shape, t.stride()
    except (RuntimeError, NotImplementedError):
        return None


def same_values(a, b):
    if torch.equal(a, b):
        return True
    if a.is_floating_point() or a.is_complex():  # NaN != NaN: compare NaN positions apart
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return False
