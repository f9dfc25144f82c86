# The same engine with the version counter switched on: the out-of-place block is unaffected,
# the in-place one stops at backward, like PyTorch.
import numpy as np

from tapegrad.block import init_params, loss_and_gradients

params = init_params(seed=0)
_, unchecked = loss_and_gradients(params, inplace=False, check_versions=False)
_, checked = loss_and_gradients(params, inplace=False, check_versions=True)
print("out of place, check on: same gradients as with it off:",
      all(np.array_equal(unchecked[name], checked[name]) for name in unchecked))
loss_and_gradients(params, inplace=True, check_versions=True)  # raises
