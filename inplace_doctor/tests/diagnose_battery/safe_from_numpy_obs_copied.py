"""The same environment, but the policy gets a copy of the buffer: refilling it changes nothing a
graph saved.

Kind: harmless
"""
import numpy as np
import torch
import torch.nn as nn


class Env:
    def __init__(self):
        self.obs = np.zeros((8, 4), dtype=np.float32)
        self.rng = np.random.default_rng(0)

    def step(self):
        self.obs[:] = self.rng.standard_normal((8, 4))  # twin: self.obs = self.rng.standard_normal((8, 4)).astype(np.float32)
        return self.obs


torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
env = Env()
obs = torch.from_numpy(env.step().copy())
logits = policy(obs)
env.step()
loss = logits.logsumexp(dim=1).mean()
loss.backward()
