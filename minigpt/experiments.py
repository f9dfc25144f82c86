"""The course's experiments, as a learner calls them: run B's first backward with anomaly
detection off or on, the probe-batch gradients of a model with some switches, and whole
training runs (`from minigpt.experiments import run_b, gradients, training`).

Each goes through one cache: the function MINIGPT_CACHE names ("module:function"), else one in
this process's memory. function(key, compute) returns compute()'s value, or the value it kept
under key, which names the experiment and its arguments (not the code: the function's own key
says which code computed it). The book's build names the lesson's (phase25.experiments.stored,
the engine's result store), so that its pages, its claims and the reproducer's command-line runs
share one result of each.
"""

import importlib
import os
from collections.abc import Callable
from dataclasses import asdict
from functools import cache
from typing import Any

from .data import AgreementData, build_dataset, probe_batch
from .train import (
    BackwardFailure,
    BackwardRaised,
    Gradients,
    Progress,
    RunResult,
    TrainConfig,
    build_model,
    default_device,
    model_config,
    switch_gradients,
    train,
    try_backward,
)

CACHE = "MINIGPT_CACHE"  # environment variable: "module:function", a cache that each experiment goes through
BYPASSES: dict[str, dict[str, Any]] = {
    "hooks": {"inplace": True, "bypass": "hooks"},
    "ctx": {"inplace": True, "bypass": "ctx"},
    "data": {"inplace": True, "bypass": "data"},
}
_memory: dict[str, Any] = {}


@cache
def data() -> AgreementData:
    """The course's data set (minigpt.data.build_dataset), built once per process."""
    return build_dataset()


def _in_memory(key: str, compute: Callable[[], Any]) -> Any:
    if key not in _memory:
        _memory[key] = compute()
    return _memory[key]


@cache
def _cache() -> Callable[[str, Callable[[], Any]], Any]:
    named = os.environ.get(CACHE, "")
    if not named:
        return _in_memory
    module, _, function = named.partition(":")
    try:
        found: Callable[[str, Callable[[], Any]], Any] = getattr(importlib.import_module(module), function)
    except (ImportError, AttributeError) as exc:
        raise RuntimeError(f"{CACHE}={named}: no such function ({exc}); unset it or name module:function") from None
    return found


def cached(name: str, compute: Callable[[], Any], **arguments: Any) -> Any:
    """compute() once per name(arguments), in the cache MINIGPT_CACHE names or in memory."""
    if default_device() != "cpu":  # python -m phase25 record --device: the same experiments, elsewhere
        arguments = dict(arguments, device=default_device())
    return _cache()(f"{name}({','.join(f'{k}={v}' for k, v in sorted(arguments.items()))})", compute)


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


def training(progress: Progress | None = None, **switches: Any) -> RunResult:
    """The RunResult of training a model with these switches with the default TrainConfig
    (`minigpt train` with no other key comes here: the reproducer's runs are the pages' runs).
    progress: as train's, while it trains."""
    config = model_config(data(), **switches)
    default = asdict(model_config(data()))
    changed = {k: v for k, v in asdict(config).items() if v != default[k]}  # one key for one run
    found: RunResult = cached("training", lambda: train(config, TrainConfig(), data(), progress), **changed)
    return found
