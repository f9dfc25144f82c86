import numpy as np

from tapegrad.block import finite_differences, init_params, loss_and_gradients

params = init_params(seed=0)
loss, grads = loss_and_gradients(params, inplace=False)
numeric = finite_differences(params)
print(f"loss = {loss:.6f}")
# en: error: max |tape - finite differences| / max |finite differences|
# es: error: máx |cinta - diferencias finitas| / máx |diferencias finitas|
print(f"{'name':<10}{'shape':<10}error")
errors = {}
for name, grad in grads.items():
    errors[name] = (np.abs(grad - numeric[name]).max()
                    / np.abs(numeric[name]).max())
    print(f"{name:<10}{str(list(grad.shape)):<10}{errors[name]:.1e}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert all(e < 1e-6 for e in errors.values()), "the page says the engine agrees with finite differences"
