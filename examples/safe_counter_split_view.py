# Unsafe: in place on an output of split, as in the attention block's
# q, k, v = self.qkv(x).split(C, dim=2). split returns three views of one tensor, and autograd
# refuses an in-place write into any of them at the op itself, before any backward.
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
C = 8
qkv = nn.Linear(C, 3 * C)
x = torch.randn(2, 6, C)

q, k, v = qkv(x).split(C, dim=2)
q = q / math.sqrt(C)  # out of place: a new tensor
((q @ k.transpose(-2, -1)).softmax(-1) @ v).sum().backward()
print("out of place, q = q / math.sqrt(C): backward completes")
q, k, v = qkv(x).split(C, dim=2)
q /= math.sqrt(C)  # raises
