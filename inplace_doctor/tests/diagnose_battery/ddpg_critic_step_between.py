"""An actor-critic (DDPG) update in the wrong order: the actor's loss goes through the critic,
and the critic's AdamW step (foreach=True, the CUDA default) runs before the actor's backward.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1), nn.Tanh())
critic = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
actor_opt = torch.optim.AdamW(actor.parameters(), lr=1e-3, foreach=True)
critic_opt = torch.optim.AdamW(critic.parameters(), lr=1e-3, foreach=True)
state, action, target = torch.randn(32, 3), torch.randn(32, 1), torch.randn(32, 1)

critic_loss = (critic(torch.cat([state, action], dim=1)) - target).pow(2).mean()
actor_loss = -critic(torch.cat([state, actor(state)], dim=1)).mean()
critic_opt.zero_grad()
critic_loss.backward()
critic_opt.step()  # WRITE twin: pass
actor_opt.zero_grad()
actor_loss.backward()
actor_opt.step()
