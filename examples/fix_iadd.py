import torch
import torch.nn.functional as F

x = torch.randn(2, 4, requires_grad=True)
h = x * 1
# en: LayerNorm saves h for its backward pass, as in the mini-GPT
# es: LayerNorm guarda h para su pasada hacia atrás, como en el mini-GPT
normed = F.layer_norm(h, (4,))
version = h._version
h += 1
print(f"h._version: {version} -> {h._version}")
normed.sum().backward()
