# The in-place residual in the hand-written engine: h.add_(...) instead of h = h + ...
# Saved tensors are references and nothing checks them: the forward is the same, the
# backward reads the overwritten h, and the gradients come out wrong without a word.
import numpy as np

from tapegrad.block import init_params, loss_and_gradients

params = init_params(seed=0)
loss_a, grads_a = loss_and_gradients(params, inplace=False)
loss_b, grads_b = loss_and_gradients(params, inplace=True)  # Tape(check_versions=False)
print("loss A == loss B:", loss_a == loss_b)
print(f"{'parameter':<10}relative gradient error of B")
errors = {}
for name in grads_a:
    errors[name] = np.linalg.norm(grads_b[name] - grads_a[name]) / np.linalg.norm(grads_a[name])
    print(f"{name:<10}{errors[name]:.1%}")
