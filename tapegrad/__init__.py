"""tapegrad: phase 8 in miniature, a tape-based autograd over numpy with an optional version counter.

    import tapegrad as tg
    with tg.Tape(check_versions=True):   # False: saved tensors are never checked
        loss = ...forward with tg.Tensor, tg.layer_norm, tg.tanh, @, +, .add_ ...
    loss.backward()

tapegrad.block holds the residual demo (one pre-norm block, in place or not).
"""

from .engine import Tape, Tensor, add, backward, layer_norm, matmul, mul, sum, tanh

__all__ = ["Tape", "Tensor", "add", "backward", "layer_norm", "matmul", "mul", "sum", "tanh"]
