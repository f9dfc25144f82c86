import torch

torch.manual_seed(0)
x = torch.empty(4, 4, device="meta", requires_grad=True)
h = x.sigmoid()
h.mul_(2)  # WRITE
try:
    h.sum().backward()
except RuntimeError as e:
    print("raised", type(e).__name__)
m = torch.nn.Linear(4, 4, device="meta")
print(m(torch.empty(2, 4, device="meta")).shape)
