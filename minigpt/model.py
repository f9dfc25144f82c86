"""A small GPT in the spirit of nanoGPT's model.py, with the phase-25 break switches.

The one line to look at is in ``Block.forward``: the residual is either
``h = h + ...`` (out of place, correct) or ``h.add_(...)`` (in place, the break).
"""

import math
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import Field, dataclass, field, fields
from typing import TYPE_CHECKING, Any

import torch
import torch.nn as nn
import torch.nn.functional as F

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

BYPASSES = ("none", "hooks", "data", "ctx")
CLONES = ("none", "after", "before")
DEVICES = ("cpu", "cuda")


def setting(default: Any, help: str, **limits: object) -> Any:
    """A config field that ``minigpt`` takes as key=value, with its help and limits (choices, min, max)."""
    return field(default=default, metadata={"help": help, **limits})


@dataclass
class GPTConfig:
    vocab_size: int = 64
    block_size: int = 16
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    # The break: residual written in place with h.add_(...) instead of h = h + ...
    inplace: bool = setting(False, "residual written in place, h.add_(...) (the break)")
    # How an in-place residual escapes PyTorch's version check (silently wrong gradients):
    #   "none"  - no escape: backward raises the version-counter RuntimeError
    #   "hooks" - saved tensors pass through identity saved_tensors_hooks (check skipped)
    #   "data"  - the residual is written through h.data (the counter is not bumped)
    #   "ctx"   - LayerNorm is a custom autograd.Function that keeps ctx.x, not save_for_backward
    bypass: str = setting(
        "none", "how the in-place residual escapes the version check (needs inplace=true)", choices=BYPASSES
    )
    # Fix 2 keeps the in-place residual but adds into a copy of h (needs inplace=true):
    #   "none"   - no copy (run B)
    #   "after"  - h.clone() after ln1/ln2 saved h: the saved h is never written (the fix)
    #   "before" - h.clone() before ln1/ln2: they save the copy, and add_ writes it (still breaks)
    clone: str = setting(
        "none", "where the in-place residual copies h before adding (needs inplace=true)", choices=CLONES
    )
    # The seed's other break candidates; both are safe where they sit (tests prove it).
    relu_inplace: bool = setting(False, "F.relu_ after the first feed-forward Linear (safe)")
    exp_inplace: bool = setting(False, "exp_ inside the hand-written attention softmax (safe)")
    # Weights are drawn on the CPU and then moved, so a seed gives the same weights on either device.
    device: str = setting("cpu", "where the model runs and computes its gradients", choices=DEVICES)

    def __post_init__(self) -> None:
        check_limits(self)
        if self.device == "cuda" and not torch.cuda.is_available():
            raise ValueError(missing_cuda())
        if self.bypass != "none" and not self.inplace:
            raise ValueError(f"bypass={self.bypass} only applies to the in-place residual (inplace=true)")
        if self.clone != "none" and (not self.inplace or self.bypass != "none"):
            raise ValueError(f"clone={self.clone} only applies to the in-place residual (inplace=true, bypass=none)")
        if self.n_embd % self.n_head:
            raise ValueError(f"n_embd={self.n_embd} must be divisible by n_head={self.n_head}")


def missing_cuda() -> str:
    """The one line that says device=cuda cannot run here, and why."""
    build = "a CPU-only build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}"
    return (
        f"device=cuda needs an NVIDIA GPU that torch sees, and torch {torch.__version__} ({build}) "
        "sees none; use device=cpu"
    )


def check_limits(config: "DataclassInstance") -> None:
    """Raise ValueError for the first field of a config dataclass outside its declared limits."""
    for setting_field in fields(config):
        value = getattr(config, setting_field.name)
        problem = limit_problem(setting_field, value)
        if problem:
            raise ValueError(f"{setting_field.name} {problem}, not {value!r}")


def limit_problem(setting_field: Field[Any], value: object) -> str | None:
    """What is wrong with value for this field ("must be ..."), or None if its limits allow it."""
    limits = setting_field.metadata
    outside = (
        ("choices" in limits and value not in limits["choices"])
        or ("min" in limits and value < limits["min"])
        or ("max" in limits and value > limits["max"])
    )
    return f"must be {allowed_values(limits)}" if outside else None


def allowed_values(limits: Mapping[str, Any]) -> str | None:
    """A setting's limits in words ("one of ...", "between 1 and 100000", ">= 0"), or None."""
    if "choices" in limits:
        return f"one of {', '.join(limits['choices'])}"
    if "min" in limits and "max" in limits:
        return f"between {limits['min']} and {limits['max']}"
    if "min" in limits:
        return f">= {limits['min']}"
    if "max" in limits:
        return f"<= {limits['max']}"
    return None


class LayerNormKeepingInput(torch.autograd.Function):
    """LayerNorm whose backward reads ``ctx.x``.

    The forward is ``F.layer_norm`` itself, so the output is bitwise what ``nn.LayerNorm``
    computes. Keeping the input as a ctx attribute instead of ``ctx.save_for_backward(x)`` skips
    the version counter: an in-place write to x after the forward goes unnoticed.
    """

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
        ctx.x = x
        ctx.eps = eps
        ctx.save_for_backward(weight)
        return F.layer_norm(x, x.shape[-1:], weight, bias, eps)

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        x = ctx.x  # may have been overwritten in place since the forward
        (weight,) = ctx.saved_tensors
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, unbiased=False, keepdim=True)
        rstd = 1.0 / torch.sqrt(var + ctx.eps)
        xhat = (x - mean) * rstd
        leading = tuple(range(x.dim() - 1))
        grad_weight = (grad_out * xhat).sum(leading)
        grad_bias = grad_out.sum(leading)
        g = grad_out * weight
        grad_x = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
        return grad_x, grad_weight, grad_bias, None


class LayerNormKeepingCtx(nn.LayerNorm):
    """nn.LayerNorm whose forward and backward are the ctx-keeping Function (the "ctx" bypass)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return LayerNormKeepingInput.apply(x, self.weight, self.bias, self.eps)


def layer_norm(config: GPTConfig) -> nn.LayerNorm:
    return (LayerNormKeepingCtx if config.bypass == "ctx" else nn.LayerNorm)(config.n_embd)


class CausalSelfAttention(nn.Module):
    mask: torch.Tensor

    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.n_head = config.n_head
        self.exp_inplace = config.exp_inplace
        self.qkv = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.proj = nn.Linear(config.n_embd, config.n_embd)
        mask = torch.tril(torch.ones(config.block_size, config.block_size, dtype=torch.bool))
        self.register_buffer("mask", mask.view(1, 1, config.block_size, config.block_size))

    def softmax(self, scores: torch.Tensor) -> torch.Tensor:
        # Written by hand so that the seed's "x.exp() -> x.exp_()" has a place to happen.
        shifted = scores - scores.amax(-1, keepdim=True)
        e = shifted.exp_() if self.exp_inplace else shifted.exp()
        return e / e.sum(-1, keepdim=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        scores = scores.masked_fill(~self.mask[:, :, :T, :T], float("-inf"))
        y = self.softmax(scores) @ v
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))


class FeedForward(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.relu_inplace = config.relu_inplace
        self.fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.fc(x)
        x = F.relu_(x) if self.relu_inplace else F.relu(x)
        return self.proj(x)


class Block(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.ln1 = layer_norm(config)
        self.attn = CausalSelfAttention(config)
        self.ln2 = layer_norm(config)
        self.ffn = FeedForward(config)
        self.inplace = config.inplace
        self.through_data = config.bypass == "data"
        self.clone = config.clone

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        if self.through_data:  # bypass "data": h.data is invisible to autograd
            h.data.add_(self.attn(self.ln1(h)))
            h.data.add_(self.ffn(self.ln2(h)))
        elif self.clone == "after":  # fix 2: copy h once ln1/ln2 have saved it
            update = self.attn(self.ln1(h))
            h = h.clone()
            h.add_(update)
            update = self.ffn(self.ln2(h))
            h = h.clone()
            h.add_(update)
        elif self.clone == "before":  # fix 2 too early: ln1/ln2 save the copy
            h = h.clone()
            update = self.attn(self.ln1(h))
            h.add_(update)
            h = h.clone()
            update = self.ffn(self.ln2(h))
            h.add_(update)
        elif self.inplace:  # run B, the break
            h.add_(self.attn(self.ln1(h)))
            h.add_(self.ffn(self.ln2(h)))
        else:  # run A, the control
            h = h + self.attn(self.ln1(h))
            h = h + self.ffn(self.ln2(h))
        return h


class GPT(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.config = config
        self.tok_emb = nn.Embedding(config.vocab_size, config.n_embd)
        self.pos_emb = nn.Embedding(config.block_size, config.n_embd)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.to(config.device)

    def forward(
        self, idx: torch.Tensor, targets: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        # Batches are built on the CPU (minigpt.data), whatever the device: the model takes them there.
        idx = idx.to(self.config.device)
        targets = None if targets is None else targets.to(self.config.device)
        T = idx.size(1)
        if T > self.config.block_size:
            raise ValueError(f"sequence length {T} exceeds block_size={self.config.block_size}")
        with saved_tensor_hooks_if(self.config.bypass == "hooks"):
            h = self.tok_emb(idx) + self.pos_emb(torch.arange(T, device=idx.device))
            for block in self.blocks:
                h = block(h)
            logits = self.head(self.ln_f(h))
        if targets is None:
            return logits, None
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1), ignore_index=-1)
        return logits, loss


def saved_tensor_hooks_if(enabled: bool) -> AbstractContextManager[None]:
    """Identity pack/unpack hooks: harmless on their own, yet they switch the version check off."""
    if not enabled:
        return nullcontext()
    return torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)
