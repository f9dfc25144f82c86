"""The same agent with the target network synced after every backward that needs it.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
actor, critic, target = nn.Linear(4, 4), nn.Linear(4, 1), nn.Linear(4, 1)
opt = torch.optim.SGD([*actor.parameters(), *critic.parameters()], lr=0.1)


def update_network_parameters():
    target.load_state_dict(critic.state_dict())


for step in range(3):
    s = torch.randn(8, 4)
    q = target(actor(s)).tanh()
    critic_loss = (critic(s) - q).pow(2).mean()
    opt.zero_grad()
    critic_loss.backward(retain_graph=True)
    actor_loss = -q.mean()
    actor_loss.backward()
    opt.step()
    update_network_parameters()  # twin: update_network_parameters()
