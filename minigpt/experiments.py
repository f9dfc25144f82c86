"""The course's experiments, as a learner calls them (`from minigpt.experiments import run_b, gradients,
training`). Each is computed once per process, and once per MINIGPT_CACHE folder: kept there as
<key>-<code>.pickle (code: the fingerprint of minigpt's sources and torch) and logged to computed.jsonl,
so the book's pages, claims and command-line runs share one result and no build computes one twice."""

import hashlib
import json
import os
import pickle
import time
from collections.abc import Callable
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import torch

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

# The modules an experiment runs (tests/test_deps.py checks them against the imports): their sources key it
SOURCES = ("__init__.py", "data.py", "model.py", "train.py", "experiments.py")
CACHE = "MINIGPT_CACHE"  # environment variable: a folder that keeps each experiment's result
BYPASSES: dict[str, dict[str, Any]] = {b: {"inplace": True, "bypass": b} for b in ("hooks", "ctx", "data")}
_memory: dict[str, Any] = {}
T = TypeVar("T")


@cache
def data() -> AgreementData:
    """The course's data set (minigpt.data.build_dataset), built once per process."""
    return build_dataset()


@cache
def code() -> str:
    """The fingerprint of minigpt's sources and of the installed torch: what an experiment's result depends on."""
    digest = hashlib.sha256(torch.__version__.encode())
    for name in SOURCES:
        digest.update(name.encode() + b"\0" + (Path(__file__).parent / name).read_bytes())
    return digest.hexdigest()[:16]


def _kept(key: str, compute: Callable[[], Any]) -> Any:
    """compute()'s value, kept in the folder MINIGPT_CACHE names (read back if it is there already)."""
    folder = Path(os.environ[CACHE])
    path = folder / f"{key}-{code()}.pickle"
    if path.is_file():
        return pickle.loads(path.read_bytes())
    started = time.perf_counter()
    value = compute()
    folder.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(f".{os.getpid()}.tmp")  # another process never reads half of it
    scratch.write_bytes(pickle.dumps(value))
    scratch.replace(path)
    entry = {
        "kind": "experiment",
        "key": path.stem,
        "seconds": round(time.perf_counter() - started, 3),
        "at": time.time(),
    }
    with open(folder / "computed.jsonl", "a", encoding="utf-8") as log:
        log.write(json.dumps(entry) + "\n")
    return value


def described(**arguments: Any) -> str:
    """arguments as "k=v,...", a key for results, with what each also depends on: the device (not the CPU)
    and the thread count (a reduction over more threads sums in another order)."""
    if default_device() != "cpu":
        arguments = dict(arguments, device=default_device())
    arguments = dict(arguments, threads=torch.get_num_threads())
    return ",".join(f"{k}={v}" for k, v in sorted(arguments.items()))


def cached(name: str, compute: Callable[[], T], **arguments: Any) -> T:
    """compute() once per name(arguments) (described): in this process, and in the folder MINIGPT_CACHE names."""
    key = f"{name}({described(**arguments)})"
    if key not in _memory:
        _memory[key] = _kept(key, compute) if os.environ.get(CACHE) else compute()
    return _memory[key]


def run_b(anomaly: bool) -> BackwardFailure | None:
    """BackwardFailure of run B's first backward on the probe batch (None if it completed)."""

    def compute() -> BackwardFailure | None:
        x, y = probe_batch(data())
        return try_backward(build_model(model_config(data(), inplace=True), seed=0), x, y, anomaly)

    return cached("run_b", compute, anomaly=anomaly)


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
    return result


def training(progress: Progress | None = None, **switches: Any) -> RunResult:
    """The RunResult of training with these switches and the default TrainConfig (as `minigpt train`
    with no other key: the reproducer's runs are the pages'); progress: as train's."""
    config = model_config(data(), **switches)
    default = asdict(model_config(data()))
    changed = {k: v for k, v in asdict(config).items() if v != default[k]}  # one key for one run
    return cached("training", lambda: train(config, TrainConfig(), data(), progress), **changed)
