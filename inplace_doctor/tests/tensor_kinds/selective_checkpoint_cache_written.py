from functools import partial

import torch
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

torch.manual_seed(0)


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
