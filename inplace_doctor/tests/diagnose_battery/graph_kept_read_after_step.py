"""An actor-critic step that keeps the next state's value with its graph, steps the critic, and
then backpropagates an auxiliary loss through that kept value: the later backward reads weights
the step overwrote.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
critic_opt = torch.optim.SGD(critic.parameters(), lr=0.1)
state, next_state, reward = torch.randn(8, 4), torch.randn(8, 4), torch.randn(8, 1)
next_value = critic(next_state)
target = reward + 0.99 * next_value.detach()
loss = (critic(state) - target).pow(2).mean()
critic_opt.zero_grad()
loss.backward()
critic_opt.step()  # WRITE twin: pass
next_value.pow(2).mean().backward()
