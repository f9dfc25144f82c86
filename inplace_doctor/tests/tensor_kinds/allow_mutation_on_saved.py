import torch

torch.manual_seed(0)
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    w = torch.randn(4, requires_grad=True)
    h = w.sin()
    y = h.cos()
    h.mul_(2)  # WRITE
    y.sum().backward()
print(w.grad.sum().item())
