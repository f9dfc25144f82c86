"""A DistributedDataParallel model (a world of one process, gloo) whose buffer is rescaled in place
between the forward and the backward: the forward's graph saved that buffer.

Kind: raises
"""
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 16), nn.Linear(16, 1)
        self.register_buffer("scale", torch.ones(16))

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)) * self.scale)


dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
try:
    torch.manual_seed(0)
    net = Net()
    model = DDP(net)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(2):
        loss = model(torch.randn(4, 8)).pow(2).mean()
        with torch.no_grad():
            net.scale.mul_(0.9)  # WRITE twin: net.scale = net.scale * 0.9
        opt.zero_grad()
        loss.backward()
        opt.step()
finally:
    dist.destroy_process_group()
