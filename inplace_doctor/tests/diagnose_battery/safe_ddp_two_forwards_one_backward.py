"""DistributedDataParallel (a world of one process, gloo, buffers broadcast at each forward as by default) called twice
before one backward: at the second forward DDP broadcasts the buffers, copying them in place over
the buffer the first forward's graph saved. With one process the values are the same, so the
gradients are right; the diagnoser must not report the copy. Torch 2.10 and 2.11 bump the buffer's
version at that copy, and the backward raises there.

Kind: harmless
Since: torch 2.12
"""
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 16), nn.Linear(16, 1)
        self.register_buffer("scale", torch.full((16,), 0.5))

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)) * self.scale)


dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
try:
    torch.manual_seed(0)
    model = DDP(Net())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(2):
        first = model(torch.randn(4, 8)).pow(2).mean()
        second = model(torch.randn(4, 8)).pow(2).mean()
        opt.zero_grad()
        (first + second).backward()  # twin: (first + second).backward()
        opt.step()
finally:
    dist.destroy_process_group()
