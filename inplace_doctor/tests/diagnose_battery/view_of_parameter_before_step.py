"""Per-head weights taken once as views of one parameter (chunk), before the loop: the optimizer
step writes the parameter in place, and the next forward's use of a view raises.

Kind: view
"""
import torch

torch.manual_seed(0)
weight = torch.randn(8, 4, requires_grad=True)
opt = torch.optim.SGD([weight], lr=0.1)
heads = weight.chunk(2)
x = torch.randn(5, 4)
for step in range(2):
    opt.zero_grad()
    loss = sum((x @ h.t()).pow(2).mean() for h in heads)
    loss.backward()
    opt.step()  # WRITE twin: opt.step(); heads = weight.chunk(2)
