# Unsafe: the fresh torch.zeros buffer of the safe case, read between its
# writes. An RNN keeps its states in one buffer; each step reads the state
# before it, and the matrix product saves what it read (a view of the buffer)
# for the gradient of W. The next write into the buffer makes it stale.
import torch

torch.manual_seed(0)
W = torch.randn(4, 4, requires_grad=True)
h0 = torch.randn(4)

states = [h0]  # out of place: a list of new tensors, stacked at the end
for t in range(1, 5):
    states.append(torch.tanh(states[-1] @ W))
torch.stack(states).sum().backward()
print("a list of states: backward completes")

states = torch.zeros(5, 4)  # in place: one fresh buffer, written row by row
states[0] = h0
for t in range(1, 5):
    states[t] = torch.tanh(states[t - 1] @ W)  # the product saved states[t - 1]
states.sum().backward()  # raises
