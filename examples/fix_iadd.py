# h += x is the same in-place add as h.add_(x): Python runs h.__iadd__(x).
import torch
import torch.nn.functional as F

x = torch.randn(2, 4, requires_grad=True)
h = x * 1
normed = F.layer_norm(h, (4,))  # LayerNorm saves h, as in the mini-GPT
version = h._version
h += 1
print(f"h += 1: version {version} -> {h._version}")
normed.sum().backward()
