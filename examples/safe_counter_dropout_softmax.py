import torch
import torch.nn.functional as F

torch.manual_seed(0)
scores = torch.randn(2, 6, 6, requires_grad=True)
v = torch.randn(2, 6, 8)

(F.dropout(scores.softmax(-1), p=0.1, training=True) @ v).sum().backward()
print("F.dropout(softmax): backward() ✓")
weights = scores.softmax(-1)
loss = (F.dropout(weights, p=0.1, training=True, inplace=True) @ v).sum()
loss.backward()  # RuntimeError
