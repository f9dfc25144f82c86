"""An actor-critic agent whose learn() helper steps the critic between the critic's backward and
the actor's backward through the critic.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
critic = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)


def learn_critic(loss):
    critic_opt.zero_grad()
    loss.backward(retain_graph=True)
    critic_opt.step()  # WRITE twin: pass


state = torch.randn(16, 3)
value = critic(torch.cat([state, actor(state)], dim=1))
learn_critic((value - 1.0).pow(2).mean())
actor_opt.zero_grad()
(-value.mean()).backward()
actor_opt.step()
