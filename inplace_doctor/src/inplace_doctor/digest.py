"""A digest of a tensor's bytes: tells whether its values changed, without keeping a copy.

The diagnoser keeps one for every saved tensor, taken once the op that saved it has run, and
compares it at backward with a digest of what backward will read: a difference is a write made
where neither the version counter nor the dispatcher looks (a NumPy alias, a custom kernel,
``x.data = ...``). A copy of every saved tensor would double the memory of the activations; a
digest is one 32-bit number per ``CHUNK`` elements.

The digest reads the raw bits as 32-bit integers (so NaN and infinity compare like any other
value) and takes, per block of ``CHUNK`` elements, their dot product with fixed random odd
weights, in integer arithmetic modulo 2**32. That sum does not depend on the order in which it
is added up, and a change of one element moves it by its change times an odd weight, which is
never 0 modulo 2**32: a single changed element always shows; several go unseen only when their
changes cancel exactly (about one chance in 4 billion).
"""

import functools
from collections.abc import Sequence

import torch

from .memory import kind_unexamined

CHUNK = 1 << 18  # elements per number of the digest (the weights: 1 MiB, once)
BLOCK_ROWS = 2  # chunks multiplied at a time: bounds the temporary memory to 2 MiB
GPU_BLOCK_ROWS = 32  # on a GPU, fewer and larger kernels: a 32 MiB temporary at most
_WEIGHTS = torch.randint(0, 1 << 30, (CHUNK,), dtype=torch.int32, generator=torch.Generator().manual_seed(25)) * 2 + 1
_FOUR_BYTES = (torch.float32, torch.int32)


def _in_memory_order(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor flat, in the order of its bytes in memory: a view for a contiguous tensor or a
    permutation of one (a transposed weight), a copy otherwise. The same tensor always gives the
    same order, which is all a digest needs."""
    if tensor.is_contiguous():
        return tensor.view(-1)
    strides = tensor.stride()
    permuted = tensor.permute(sorted(range(tensor.dim()), key=lambda d: -strides[d]))
    return permuted.view(-1) if permuted.is_contiguous() else tensor.reshape(-1)


def _bits(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor's bytes as a flat int32 tensor (narrower types widened)."""
    flat = _in_memory_order(tensor)
    if flat.dtype in _FOUR_BYTES:
        return flat.view(torch.int32)
    if flat.dtype == torch.bool:
        flat = flat.view(torch.uint8)
    elif flat.dtype.is_complex:
        flat = torch.view_as_real(flat).reshape(-1)
    size = flat.element_size()
    if size >= 4:
        return flat.view(torch.int32)
    return flat.view(torch.int16 if size == 2 else torch.uint8).to(torch.int32)


def digest(tensor: torch.Tensor) -> torch.Tensor | None:
    """A 1-D int32 tensor, on the tensor's device, that changes when the tensor's values change
    (0 elements for an empty tensor); None for a tensor whose bytes cannot be read (sparse,
    meta, a tensor subclass without storage).

    Off the CPU it launches few kernels and never waits for them: one multiply and one sum per
    ``GPU_BLOCK_ROWS`` chunks (one of each for a tensor up to that size); comparing many digests
    costs one synchronisation in all (``changed``)."""
    if kind_unexamined(tensor):
        return None
    try:
        return _digest(_bits(tensor.detach() if tensor.requires_grad else tensor))
    except (RuntimeError, NotImplementedError, TypeError):  # no bytes to read (a wrapper's detached shell)
        return None


def _digest(bits: torch.Tensor) -> torch.Tensor:
    n = bits.numel()
    if n == 0:
        return bits.new_zeros(0)
    if n <= CHUNK and bits.is_cpu:  # one number; integer dot is CPU-only
        return torch.dot(bits, _weights_for(n)).reshape(1)
    weights = _WEIGHTS if bits.is_cpu else _weights_on(bits.device)
    if n <= CHUNK:
        return (bits * weights[:n]).sum(dtype=torch.int32).reshape(1)
    rows = BLOCK_ROWS if bits.is_cpu else GPU_BLOCK_ROWS
    full = n - n % CHUNK
    parts = [
        (bits[start : min(start + rows * CHUNK, full)].view(-1, CHUNK) * weights).sum(1, dtype=torch.int32)
        for start in range(0, full, rows * CHUNK)
    ]
    if full < n:
        parts.append((bits[full:] * weights[: n - full]).sum(dtype=torch.int32).reshape(1))
    return parts[0] if len(parts) == 1 else torch.cat(parts)


@functools.lru_cache(maxsize=1024)
def _weights_for(n: int) -> torch.Tensor:
    """The first n weights (a view): sizes recur from step to step."""
    return _WEIGHTS[:n]


@functools.cache
def _weights_on(device: torch.device) -> torch.Tensor:
    return _WEIGHTS.to(device)


def changed(pairs: Sequence[tuple[torch.Tensor | None, torch.Tensor | None]]) -> list[bool]:
    """For each (before, now) pair of digests: did the values change? One comparison and one
    synchronisation per device for all of them (a missing digest counts as unchanged)."""
    result = [False] * len(pairs)
    by_device: dict[torch.device, list[int]] = {}
    for i, (a, b) in enumerate(pairs):
        if a is None or b is None:
            continue
        if a.shape != b.shape or a.device != b.device:
            result[i] = True
        elif a.numel():
            by_device.setdefault(a.device, []).append(i)
    for indices in by_device.values():
        before = torch.cat([pairs[i][0] for i in indices])  # type: ignore[misc]
        now = torch.cat([pairs[i][1] for i in indices])  # type: ignore[misc]
        differs = torch.ne(before, now).tolist()  # the one synchronisation
        start = 0
        for i in indices:
            end = start + pairs[i][0].numel()  # type: ignore[union-attr]
            result[i], start = any(differs[start:end]), end
    return result


def nbytes(d: torch.Tensor | None) -> int:
    return 0 if d is None else d.numel() * d.element_size()
