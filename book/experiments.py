"""The experiments that the claims (drift), the pages and the compatibility page share.

Each is computed once per fingerprint of the code it runs and the installed torch, then read back
(book.store): run B's first backward with anomaly detection off and on, the probe-batch gradients
of each switch setting, the training runs, and run A and run B under torch.compile with each
backend (book.compiled). The build computes the SHARED ones first, in two processes, before any
page runs; anything else is computed where it is first needed.
"""

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from minigpt.data import AgreementData, build_dataset, probe_batch
from minigpt.train import (BackwardFailure, BackwardRaised, Gradients, RunResult, TrainConfig, build_model,
                           default_device, model_config, switch_gradients, train, try_backward)

from . import compiled as compiling, deps, store
from .config import REPO

BYPASSES: dict[str, dict[str, Any]] = {"hooks": {"inplace": True, "bypass": "hooks"},
                                       "ctx": {"inplace": True, "bypass": "ctx"},
                                       "data": {"inplace": True, "bypass": "data"}}


@cache
def data() -> AgreementData:
    return build_dataset()


@cache
def _fingerprint() -> str:
    return deps.fingerprint(deps.closure({Path(__file__), Path(compiling.__file__), REPO / "minigpt" / "train.py"}))


def _memoized(name: str, compute: Callable[[], Any], **arguments: Any) -> Any:
    if default_device() != "cpu":  # python -m drift record --device: the same experiments, elsewhere
        arguments = dict(arguments, device=default_device())
    described = ",".join(f"{k}={v}" for k, v in sorted(arguments.items()))
    return store.memoized("experiment", f"{name}({described})-{_fingerprint()}", compute)


def run_b(anomaly: bool) -> BackwardFailure | None:
    """BackwardFailure of run B's first backward on the probe batch (None if it completed)."""
    def compute() -> BackwardFailure | None:
        x, y = probe_batch(data())
        return try_backward(build_model(model_config(data(), inplace=True), seed=0), x, y, anomaly)

    return _memoized("run_b", compute, anomaly=anomaly)


def gradients(**switches: Any) -> Gradients:
    """Probe-batch gradients of a fresh model with these switches (seed 0: run A's weights).

    Raises BackwardRaised when that backward raises (run B without a bypass)."""
    def compute() -> Gradients | BackwardRaised:
        try:
            return switch_gradients(data(), **switches)
        except BackwardRaised as raised:
            return raised

    result = _memoized("gradients", compute, **switches)
    if isinstance(result, BackwardRaised):
        raise result
    return result


def compiled(backend: str, inplace: bool) -> compiling.Compiled:
    """book.compiled.Compiled: run A (inplace=False) or run B compiled with backend, one forward call
    (which compiles) and backward on the probe batch; "not applicable: ..." where torch cannot."""
    return _memoized("compiled", lambda: compiling.measure(backend, inplace, data()), backend=backend,
                     inplace=inplace)


def training(**switches: Any) -> RunResult:
    """The RunResult of training a model with these switches with the default TrainConfig.

    Kept by minigpt's own run cache (MINIGPT_RUN_CACHE, set by the build), which the reproducer's
    command-line runs share; without it, once per process."""
    return _training(tuple(sorted(switches.items())))


@cache
def _training(switches: tuple[tuple[str, Any], ...]) -> RunResult:
    return train(model_config(data(), **dict(switches)), TrainConfig(), data())


# What the build computes before any page runs (two processes share the list): what several
# pages and the claims read, and the training runs, the longest first.
SHARED: list[tuple[Callable[..., Any], dict[str, Any]]] = [
    (training, {}), *((training, switches) for switches in BYPASSES.values()),
    *((run_b, {"anomaly": anomaly}) for anomaly in (False, True)),
    *((gradients, switches) for switches in ({}, *BYPASSES.values(), {"relu_inplace": True}, {"exp_inplace": True}))]


def compute_shared(index: int) -> None:
    """Compute SHARED[index] (the build's first step calls it in a worker process)."""
    function, arguments = SHARED[index]
    try:
        function(**arguments)
    except BackwardRaised:  # kept in the store all the same: gradients of run B raise
        pass
