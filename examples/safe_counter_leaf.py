import torch

w = torch.ones(3, requires_grad=True)
with torch.no_grad():
    # en: allowed under no_grad, as in optimizer.step()
    # es: permitido dentro de no_grad, como en optimizer.step()
    w.add_(1.0)
print("with torch.no_grad(): w.add_(1.0) -> w._version =", w._version)
w.add_(1.0)  # RuntimeError


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert w._version == 1, "the page says the same write is allowed under no_grad"
