import os
import sys

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Shard, distribute_tensor

torch.manual_seed(0)

dist.init_process_group("gloo", rank=0, world_size=1, init_method=f"file://{os.path.abspath(sys.argv[1])}")
mesh = init_device_mesh("cpu", (1,))
w = distribute_tensor(torch.randn(4, 4), mesh, [Shard(0)]).requires_grad_()
h = w.sigmoid()
h.mul_(2)  # WRITE
try:
    h.sum().backward()
finally:
    dist.destroy_process_group()
