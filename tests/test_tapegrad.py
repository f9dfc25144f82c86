"""tapegrad, phase 8 in miniature: gradients against finite differences and torch, the silent
in-place corruption without the version check, and the check catching it."""

import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tapegrad as tg
from tapegrad.block import PARAMETERS, finite_differences, init_params, loss_and_gradients, loss_only

VERSIONS = re.compile(r"is at version (\d+); expected version (\d+) instead")


def numeric_gradient(f, arrays, eps=1e-6):
    """Central differences of the scalar f(*arrays) with respect to each array."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            up = [b.copy() for b in arrays]
            down = [b.copy() for b in arrays]
            up[k][i] += eps
            down[k][i] -= eps
            g[i] = (f(*up) - f(*down)) / (2 * eps)
        grads.append(g)
    return grads


def tape_gradient(f, arrays):
    tensors = [tg.Tensor(a, requires_grad=True) for a in arrays]
    with tg.Tape():
        loss = f(*tensors)
    loss.backward()
    return [t.grad for t in tensors]


rng = np.random.default_rng(0)
OPS = {  # name: (function of tensors returning a scalar tensor, input shapes)
    "add": (lambda a, b: tg.sum(tg.tanh(a + b)), [(3, 4), (3, 4)]),
    "add, broadcast bias": (lambda a, b: tg.sum(tg.tanh(a + b)), [(3, 4), (4,)]),
    "add, broadcast column": (lambda a, b: tg.sum(tg.tanh(a + b)), [(3, 4), (3, 1)]),
    "mul": (lambda a, b: tg.sum(a * b), [(3, 4), (3, 4)]),
    "matmul": (lambda a, b: tg.sum(tg.tanh(a @ b)), [(3, 4), (4, 2)]),
    "batched matmul": (lambda a, b: tg.sum(tg.tanh(a @ b)), [(2, 3, 4), (4, 2)]),
    "tanh": (lambda a: tg.sum(tg.tanh(a) * tg.tanh(a)), [(5,)]),
    "layer_norm": (lambda a, w: tg.sum(tg.layer_norm(a) * w), [(3, 6), (3, 6)]),
    "add_ in place": (lambda a, b: tg.sum(tg.tanh((a * 1.0).add_(b))), [(3, 4), (3, 4)]),
}


@pytest.mark.parametrize("name", OPS)
def test_op_gradients_match_finite_differences(name):
    f, shapes = OPS[name]
    arrays = [rng.normal(size=s) for s in shapes]

    def value(*arrays):
        return float(f(*[tg.Tensor(a) for a in arrays]).data)

    for tape, numeric in zip(tape_gradient(f, arrays), numeric_gradient(value, arrays), strict=True):
        assert tape.shape == numeric.shape
        np.testing.assert_allclose(tape, numeric, rtol=1e-6, atol=1e-8)


def test_block_gradients_match_finite_differences():
    params = init_params(seed=3)
    _, grads = loss_and_gradients(params)
    numeric = finite_differences(params)
    for name in PARAMETERS:
        np.testing.assert_allclose(grads[name], numeric[name], rtol=1e-5, atol=1e-8)


def torch_block(p, inplace=False):
    """The same block in torch, float64; returns the loss."""

    def ln(t):
        return F.layer_norm(t, t.shape[-1:], eps=1e-5)

    h = p["x"] + p["pos"]
    if inplace:
        h.add_(torch.tanh(ln(h) @ p["w1"]))
        h.add_(ln(h) @ p["w2"])
    else:
        h = h + torch.tanh(ln(h) @ p["w1"])
        h = h + ln(h) @ p["w2"]
    y = ln(h) @ p["w_out"]
    return (y * y).sum()


def torch_gradients(arrays):
    p = {name: torch.tensor(a, requires_grad=True) for name, a in arrays.items()}
    loss = torch_block(p)
    loss.backward()
    return loss.item(), {name: t.grad.numpy() for name, t in p.items()}


def test_block_matches_torch():
    params = init_params(seed=1)
    loss, grads = loss_and_gradients(params)
    torch_loss, torch_grads = torch_gradients(params)
    assert loss == pytest.approx(torch_loss, rel=1e-12)
    for name in PARAMETERS:
        np.testing.assert_allclose(grads[name], torch_grads[name], rtol=1e-9, atol=1e-12)


def test_in_place_forward_is_identical():
    params = init_params(seed=0)
    assert loss_only(params, inplace=True) == loss_only(params, inplace=False)


def test_in_place_without_the_check_is_silently_wrong():
    params = init_params(seed=0)
    _, right = loss_and_gradients(params, inplace=False)
    _, wrong = loss_and_gradients(params, inplace=True, check_versions=False)
    relative = {n: np.linalg.norm(wrong[n] - right[n]) / np.linalg.norm(right[n]) for n in PARAMETERS}
    assert all(relative[n] > 0.1 for n in ("x", "pos", "w1")), relative
    assert relative["w2"] == relative["w_out"] == 0.0


def test_torch_refuses_the_same_in_place_block_with_the_same_versions():
    """The miniature agrees with PyTorch: same error, same version numbers."""
    p = {name: torch.tensor(a, requires_grad=True) for name, a in init_params(seed=0).items()}
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as torch_error:
        torch_block(p, inplace=True).backward()
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as tape_error:
        loss_and_gradients(init_params(seed=0), inplace=True, check_versions=True)
    assert (
        VERSIONS.search(str(tape_error.value)).groups()
        == VERSIONS.search(str(torch_error.value)).groups()
        == ("2", "1")
    )


def test_the_check_changes_nothing_out_of_place():
    params = init_params(seed=2)
    _, unchecked = loss_and_gradients(params, check_versions=False)
    _, checked = loss_and_gradients(params, check_versions=True)
    assert all(np.array_equal(unchecked[n], checked[n]) for n in PARAMETERS)


def test_the_check_compares_versions_not_values():
    a = tg.Tensor([1.0, 2.0], requires_grad=True)
    with tg.Tape(check_versions=True):
        y = tg.tanh(a)
        loss = tg.sum(y)
    y.add_(tg.Tensor([1.0, 1.0]))
    y.add_(tg.Tensor([-1.0, -1.0]))  # values back (exactly, for these numbers)
    assert np.array_equal(y.data, np.tanh([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="is at version 2; expected version 0"):
        loss.backward()


def test_version_counter_bumps_only_on_in_place_writes():
    t = tg.Tensor(np.zeros(3))
    assert t.version == 0
    u = t + 1.0
    assert t.version == 0 and u.version == 0
    t.add_(1.0)
    t.add_(1.0)
    assert t.version == 2


def test_saved_records_a_version_only_with_the_check_on():
    for check in (False, True):
        a = tg.Tensor(np.ones(3), requires_grad=True)
        with tg.Tape(check_versions=check) as tape:
            tg.tanh(a)
        (saved,) = tape.records[-1].saved
        assert (saved.version is None) is (not check)
        assert saved.tensor.data is not None


def test_nothing_is_recorded_outside_a_tape_or_without_requires_grad():
    a = tg.Tensor(np.ones(3), requires_grad=True)
    assert (a * 2.0).tape is None
    with tg.Tape() as tape:
        tg.tanh(tg.Tensor(np.ones(3)))
    assert tape.records == []


def test_backward_errors():
    with tg.Tape():
        a = tg.Tensor(np.ones(3), requires_grad=True)
        y = tg.tanh(a)
    with pytest.raises(ValueError, match="scalar"):
        y.backward()
    with pytest.raises(ValueError, match="not produced on a tape"):
        tg.Tensor(1.0).backward()


def test_gradients_accumulate_into_leaves_over_two_backwards():
    a = tg.Tensor(np.array([0.5, -1.0]), requires_grad=True)
    for _ in range(2):
        with tg.Tape():
            loss = tg.sum(a * a)
        loss.backward()
    np.testing.assert_allclose(a.grad, 2 * (2 * a.data))
