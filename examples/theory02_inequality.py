import torch

a = torch.linspace(-1.0, 1.0, 5, requires_grad=True)
# en: ExpBackward0 saves its result, y, at version 0
# es: ExpBackward0 guarda su resultado, y, en la versión 0
y = a.exp()
before = y.detach().clone()
y.mul_(2)
# en: multiplying and dividing by 2 is exact in floating point
# es: multiplicar y dividir por 2 es exacto en coma flotante
y.div_(2)
print("torch.equal(y, before):", torch.equal(y, before))
print("y._version:", y._version)
y.sum().backward()  # RuntimeError


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import raised

import torch

from minigpt import message

error = raised()
assert torch.equal(y, before), "the page says the values are back, bit for bit"
parts = message.parts(str(error))
assert (parts["version_now"], parts["version_expected"]) == ("2", "0"), parts
