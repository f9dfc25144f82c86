"""Mean teacher: the teacher's weights follow the student's (an in-place EMA under no_grad)
between the forward and the backward; the teacher is not in the student's graph.

Kind: harmless
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
student = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
teacher = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4)).requires_grad_(False)
teacher.load_state_dict(student.state_dict())
x = torch.randn(32, 8)
with torch.no_grad():
    targets = teacher(x).softmax(dim=-1)
loss = -(targets * student(x + 0.1 * torch.randn_like(x)).log_softmax(dim=-1)).sum(dim=-1).mean()
with torch.no_grad():
    for t, s in zip(teacher.parameters(), student.parameters()):
        t.mul_(0.99).add_(s, alpha=0.01)  # twin: t.copy_(t * 0.99 + s * 0.01)
loss.backward()
