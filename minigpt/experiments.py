"""The course's experiments, as a learner calls them: run B's first backward with anomaly
detection off or on, the probe-batch gradients of a model with some switches, and whole
training runs (`from minigpt.experiments import run_b, gradients, training`).

Each is computed once per process and, with MINIGPT_RUN_CACHE set to a folder, once there for
every process: the book's build sets it, so its pages, its claims and the reproducer's commands
share one result of each. A result's key changes with minigpt's code and the torch release.
"""

import os
import pickle
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import torch

from .data import AgreementData, build_dataset, probe_batch
from .experiment import fingerprint, log_computation, write_atomically
from .train import (
    RUN_CACHE,
    RUN_SOURCES,
    BackwardFailure,
    BackwardRaised,
    Gradients,
    RunResult,
    TrainConfig,
    build_model,
    default_device,
    model_config,
    switch_gradients,
    train,
    try_backward,
)

BYPASSES: dict[str, dict[str, Any]] = {
    "hooks": {"inplace": True, "bypass": "hooks"},
    "ctx": {"inplace": True, "bypass": "ctx"},
    "data": {"inplace": True, "bypass": "data"},
}
KIND = "experiment"  # the results' folder in the cache: MINIGPT_RUN_CACHE/experiment/<key>.pickle
_memory: dict[str, Any] = {}


@cache
def data() -> AgreementData:
    """The course's data set (minigpt.data.build_dataset), built once per process."""
    return build_dataset()


@cache
def _code() -> str:
    package = Path(__file__).parent
    return fingerprint(
        [package / name for name in (*RUN_SOURCES, "experiments.py")], package, f"torch {torch.__version__}"
    )


def cached(name: str, compute: Callable[[], Any], **arguments: Any) -> Any:
    """compute() once per process and name(arguments), and once in MINIGPT_RUN_CACHE when it is set."""
    if default_device() != "cpu":  # python -m phase25 record --device: the same experiments, elsewhere
        arguments = dict(arguments, device=default_device())
    described = ",".join(f"{k}={v}" for k, v in sorted(arguments.items()))
    key = f"{name}({described})-{_code()}"
    if key not in _memory:
        folder = os.environ.get(RUN_CACHE)
        path = Path(folder) / KIND / f"{key}.pickle" if folder else None
        if path is not None and path.is_file():
            _memory[key] = pickle.loads(path.read_bytes())
        else:
            start = time.perf_counter()
            _memory[key] = compute()
            if folder and path is not None:
                write_atomically(path, pickle.dumps(_memory[key]))
                log_computation(folder, KIND, key, time.perf_counter() - start)
    return _memory[key]


def run_b(anomaly: bool) -> BackwardFailure | None:
    """BackwardFailure of run B's first backward on the probe batch (None if it completed)."""

    def compute() -> BackwardFailure | None:
        x, y = probe_batch(data())
        return try_backward(build_model(model_config(data(), inplace=True), seed=0), x, y, anomaly)

    found: BackwardFailure | None = cached("run_b", compute, anomaly=anomaly)
    return found


def gradients(**switches: Any) -> Gradients:
    """Probe-batch gradients of a fresh model with these switches (seed 0: run A's weights).

    Raises BackwardRaised when that backward raises (run B without a bypass)."""

    def compute() -> Gradients | BackwardRaised:
        try:
            return switch_gradients(data(), **switches)
        except BackwardRaised as raised:
            return raised

    result = cached("gradients", compute, **switches)
    if isinstance(result, BackwardRaised):
        raise result
    found: Gradients = result
    return found


def training(**switches: Any) -> RunResult:
    """The RunResult of training a model with these switches with the default TrainConfig
    (train keeps it in MINIGPT_RUN_CACHE too, where the reproducer's command-line runs find it)."""
    return _training(tuple(sorted(switches.items())))


@cache
def _training(switches: tuple[tuple[str, Any], ...]) -> RunResult:
    return train(model_config(data(), **dict(switches)), TrainConfig(), data())
