"""The experiments that the claims (drift), the pages and the compatibility page share.

Each is computed once per fingerprint of the mini-GPT's code and the installed torch, then read
back (book.store): run B's first backward with anomaly detection off and on, the probe-batch
gradients of each switch setting, run A and run B under torch.compile with each backend
(book.compiled); the training runs are kept by minigpt.train's own run cache.
"""

from functools import cache
from pathlib import Path

from minigpt.data import build_dataset, probe_batch
from minigpt.train import BackwardRaised, TrainConfig, build_model, model_config, switch_gradients, train, try_backward

from . import compiled as compiling, deps, store


@cache
def data():
    return build_dataset()


@cache
def _fingerprint():
    own = {Path(__file__), Path(compiling.__file__)}
    return deps.fingerprint(deps.files_of(deps.package_closure("minigpt")) | own)


def _memoized(name, compute, **arguments):
    described = ",".join(f"{k}={v}" for k, v in sorted(arguments.items()))
    return store.memoized("experiment", f"{name}({described})-{_fingerprint()}", compute)


def run_b(anomaly):
    """BackwardFailure of run B's first backward on the probe batch (None if it completed)."""
    def compute():
        x, y = probe_batch(data())
        return try_backward(build_model(model_config(data(), inplace=True), seed=0), x, y, anomaly)

    return _memoized("run_b", compute, anomaly=anomaly)


def gradients(**switches):
    """Probe-batch gradients of a fresh model with these switches (seed 0: run A's weights).

    Raises BackwardRaised when that backward raises (run B without a bypass)."""
    def compute():
        try:
            return switch_gradients(data(), **switches)
        except BackwardRaised as raised:
            return raised

    result = _memoized("gradients", compute, **switches)
    if isinstance(result, BackwardRaised):
        raise result
    return result


def compiled(backend, inplace):
    """book.compiled.Compiled: run A (inplace=False) or run B compiled with backend, one forward call
    (which compiles) and backward on the probe batch; "not applicable: ..." where torch cannot."""
    return _memoized("compiled", lambda: compiling.measure(backend, inplace, data()), backend=backend,
                     inplace=inplace)


@cache
def _training(switches):
    return train(model_config(data(), **dict(switches)), TrainConfig(), data())


def training(**switches):
    """The RunResult of training a model with these switches with the default TrainConfig.

    In the book's build each run is computed once, in minigpt's run cache (MINIGPT_RUN_CACHE),
    which the reproducer's command-line runs share."""
    return _training(tuple(sorted(switches.items())))
