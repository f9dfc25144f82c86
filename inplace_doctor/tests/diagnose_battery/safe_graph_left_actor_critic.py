"""An actor-critic step that computes the next state's value through the critic with its graph
(the target is detached from it), steps the critic, and ends: the graph of next_value is left
alive, but no backward ever reads it.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
critic_opt = torch.optim.SGD(critic.parameters(), lr=0.1)
state, next_state, reward = torch.randn(8, 4), torch.randn(8, 4), torch.randn(8, 1)
next_value = critic(next_state)  # twin: next_value = critic(next_state).detach()
target = reward + 0.99 * next_value.detach()
loss = (critic(state) - target).pow(2).mean()
critic_opt.zero_grad()
loss.backward()
critic_opt.step()
