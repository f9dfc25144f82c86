"""An environment that refills its observation buffer in place (NumPy) while the policy's forward
still holds a tensor made from it with torch.from_numpy.

Kind: unseen
"""
import numpy as np
import torch
import torch.nn as nn


class Env:
    def __init__(self):
        self.obs = np.zeros((8, 4), dtype=np.float32)
        self.rng = np.random.default_rng(0)

    def step(self):
        self.obs[:] = self.rng.standard_normal((8, 4))  # WRITE twin: self.obs = self.rng.standard_normal((8, 4)).astype(np.float32)
        return self.obs


torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
env = Env()
obs = torch.from_numpy(env.step())
logits = policy(obs)
env.step()
loss = logits.logsumexp(dim=1).mean()
loss.backward()
