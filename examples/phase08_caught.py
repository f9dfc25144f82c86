import numpy as np

from tapegrad.block import init_params, loss_and_gradients

params = init_params(seed=0)
_, unchecked = loss_and_gradients(params, inplace=False, check_versions=False)
_, checked = loss_and_gradients(params, inplace=False, check_versions=True)
# en: out of place, the check changes no gradient
# es: out-of-place, la comprobación no cambia ningún gradiente
same = all(np.array_equal(unchecked[name], checked[name]) for name in unchecked)
print(f"{same = }")
loss_and_gradients(params, inplace=True, check_versions=True)  # RuntimeError


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import raised

from minigpt import message

error = raised()
assert all((unchecked[n] == checked[n]).all() for n in unchecked), "the page says out of place is unaffected"
assert message.CORE in str(error), "the page says the message is built like PyTorch's"
