"""A DQN-style agent: the target network is synced inside a helper, called between the critic's
backward and the actor's backward, both of which go through the target network's forward.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
actor, critic, target = nn.Linear(4, 4), nn.Linear(4, 1), nn.Linear(4, 1)
opt = torch.optim.SGD([*actor.parameters(), *critic.parameters()], lr=0.1)


def update_network_parameters():
    target.load_state_dict(critic.state_dict())  # WRITE


for step in range(3):
    s = torch.randn(8, 4)
    q = target(actor(s)).tanh()
    critic_loss = (critic(s) - q).pow(2).mean()
    opt.zero_grad()
    critic_loss.backward(retain_graph=True)
    update_network_parameters()  # twin: pass
    actor_loss = -q.mean()
    actor_loss.backward()
    opt.step()
