# Unsafe: in place on a leaf that requires grad (a parameter). Refused at the op
# itself, before any backward: the write would replace the value the gradient
# is taken with respect to.
import torch

w = torch.ones(3, requires_grad=True)
with torch.no_grad():
    w.add_(1.0)  # allowed under no_grad, as in optimizer.step()
print("w.add_(1.0) under torch.no_grad(): allowed, w._version =", w._version)
w.add_(1.0)  # raises


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert w._version == 1, "the page says the same write is allowed under no_grad"
