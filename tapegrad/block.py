"""The residual demo: one pre-norm transformer-like block written with tapegrad.

    h = x + pos                          # like tok_emb + pos_emb: a fresh tensor
    h = h + tanh(layer_norm(h) @ w1)     # stands in for attention
    h = h + layer_norm(h) @ w2           # stands in for the feed-forward
    loss = sum((layer_norm(h) @ w_out) ** 2)

With ``inplace=True`` the two residual lines are ``h.add_(...)``, as in the mini-GPT's run B.
"""

import numpy as np

from . import engine as tg

PARAMETERS = ("x", "pos", "w1", "w2", "w_out")


def init_params(seed: int = 0, tokens: int = 4, width: int = 6, outputs: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes = {
        "x": (tokens, width),
        "pos": (tokens, width),
        "w1": (width, width),
        "w2": (width, width),
        "w_out": (width, outputs),
    }
    return {
        name: rng.normal(size=shapes[name]) / (np.sqrt(width) if name.startswith("w") else 1) for name in PARAMETERS
    }


def forward(p: dict[str, tg.Tensor], inplace: bool = False) -> tg.Tensor:
    """The loss from tensors p (name -> Tensor); run it inside a Tape."""
    h = p["x"] + p["pos"]
    if inplace:
        h.add_(tg.tanh(tg.layer_norm(h) @ p["w1"]))
        h.add_(tg.layer_norm(h) @ p["w2"])
    else:
        h = h + tg.tanh(tg.layer_norm(h) @ p["w1"])
        h = h + tg.layer_norm(h) @ p["w2"]
    y = tg.layer_norm(h) @ p["w_out"]
    return tg.sum(y * y)


def loss_and_gradients(
    arrays: dict[str, np.ndarray], inplace: bool = False, check_versions: bool = False
) -> tuple[float, dict[str, tg.Array]]:
    """(loss, name -> gradient array) for parameter arrays (name -> ndarray)."""
    p = {name: tg.Tensor(a, requires_grad=True) for name, a in arrays.items()}
    with tg.Tape(check_versions=check_versions):
        loss = forward(p, inplace)
    loss.backward()
    return float(loss.data), {name: t.grad for name, t in p.items()}


def loss_only(arrays: dict[str, np.ndarray], inplace: bool = False) -> float:
    """The forward alone (no tape): what finite differences perturb."""
    return float(forward({name: tg.Tensor(a) for name, a in arrays.items()}, inplace).data)


def finite_differences(arrays: dict[str, np.ndarray], eps: float = 1e-6) -> dict[str, np.ndarray]:
    """Central-difference gradient of the (out-of-place) loss for every parameter entry."""
    grads = {}
    for name, a in arrays.items():
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            up, down = {k: v.copy() for k, v in arrays.items()}, {k: v.copy() for k, v in arrays.items()}
            up[name][i] += eps
            down[name][i] -= eps
            g[i] = (loss_only(up) - loss_only(down)) / (2 * eps)
        grads[name] = g
    return grads
