import torch

torch.manual_seed(0)
a = torch.nested.nested_tensor([torch.randn(2, 3), torch.randn(4, 3)], requires_grad=True)
h = a.sin()
s = h.cos()
h.mul_(2)  # WRITE
torch.nested.to_padded_tensor(s, 0.0).sum().backward()
