import torch

torch.manual_seed(0)
from functools import partial
from torch.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts, CheckpointPolicy


def policy(ctx, op, *a, **k):
    return CheckpointPolicy.MUST_SAVE if op == torch.ops.aten.sin.default else CheckpointPolicy.PREFER_RECOMPUTE


def block(x):
    return x.sin()


w = torch.randn(4, requires_grad=True)
x = w * 1
out = checkpoint(block, x, use_reentrant=False, context_fn=partial(create_selective_checkpoint_contexts, policy))
out.mul_(2)  # WRITE
y = out.cos()
y.sum().backward()
