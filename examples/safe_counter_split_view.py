import math

import torch
import torch.nn as nn

torch.manual_seed(0)
C = 8
qkv = nn.Linear(C, 3 * C)
x = torch.randn(2, 6, C)


def attention(q, k, v):
    return (q @ k.transpose(-2, -1)).softmax(-1) @ v


q, k, v = qkv(x).split(C, dim=2)
# en: out of place: a new tensor
# es: out-of-place: un tensor nuevo
q = q / math.sqrt(C)
attention(q, k, v).sum().backward()
print("q = q / math.sqrt(C): backward() ✓")
q, k, v = qkv(x).split(C, dim=2)
# en: a copy: a tensor of its own, not a view
# es: una copia: un tensor aparte, no una vista
q = q.clone()
q /= math.sqrt(C)
attention(q, k, v).sum().backward()
print("q = q.clone(); q /= math.sqrt(C): backward() ✓")
q, k, v = qkv(x).split(C, dim=2)
q /= math.sqrt(C)  # RuntimeError


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import raised

error = raised()
assert "returns multiple views" in str(error), "the page says split returns several views of one tensor"
assert q._base is not None and all(t._base is q._base for t in (k, v)), "three views of one tensor"
q, k, v = qkv(x).split(C, dim=2)
try:  # "nor into the views taken from them afterwards, such as the block's q.view(...)"
    q.view(*x.shape[:2], 2, C // 2).transpose(1, 2).mul_(1.0)
    raise AssertionError("the page says a view of an output of split is refused too")
except RuntimeError as refused:
    assert "returns multiple views" in str(refused), refused
