import numpy as np

from tapegrad.block import init_params, loss_and_gradients

params = init_params(seed=0)
loss_a, grads_a = loss_and_gradients(params, inplace=False)
# en: Tape(check_versions=False): nothing compares versions
# es: Tape(check_versions=False): nada compara versiones
loss_b, grads_b = loss_and_gradients(params, inplace=True)
print("loss_a == loss_b:", loss_a == loss_b)
# en: error: the relative gradient error of B
# es: error: el error relativo del gradiente de B
print(f"{'name':<10}error")
errors = {}
for name in grads_a:
    errors[name] = (np.linalg.norm(grads_b[name] - grads_a[name])
                    / np.linalg.norm(grads_a[name]))
    print(f"{name:<10}{errors[name]:.1%}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue_words

def _join(names, conjunction):
    """['x', 'pos', 'w1'] -> 'x, pos and w1'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {conjunction} {names[-1]}"

assert loss_a == loss_b, "the page says the forward is the same"
wrong = [name for name, e in errors.items() if e > 0]
right = [name for name, e in errors.items() if e == 0]
assert wrong and right, "the page names some wrong gradients and some exact ones"
for key, names in (("p08_wrong", wrong), ("p08_right", right)):
    glue_words(key, {"es": _join(names, "y"), "en": _join(names, "and")})
