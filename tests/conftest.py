"""Shared fixtures: the data set, cached short training runs, and a runner for the CLI.

Training is the expensive part of the suite, so every run is made once per session and
shared. Runs are short (FEW_STEPS) wherever the behaviour under test does not depend on the
number of steps: the step-0 probe gradients, for example, are taken before the first update.
"""

import os
import sys
from pathlib import Path

import pytest

from minigpt.data import build_dataset
from minigpt.train import TrainConfig, model_config, train

REPO = Path(__file__).resolve().parents[1]
FEW_STEPS = 3
SUBPROCESS_TIMEOUT_S = 300


def _snapshot(directory):
    return sorted(str(p.relative_to(directory)) for p in Path(directory).rglob("*"))


@pytest.fixture(scope="session")
def snapshot():
    """snapshot(directory): every path below it (relative), to prove a command wrote nothing."""
    return _snapshot


@pytest.fixture(scope="session")
def tool_env():
    """The environment for subprocesses: this interpreter's bin directory first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("PYTHONPATH", None)  # `minigpt` must come from the installed package
    # One intra-op thread per subprocess: several run at once, and on a busy 2-core machine two
    # threads per tiny training made it 5-20x slower (bench/train_speed.py). Exit codes and
    # messages, all that the subprocess tests assert, do not depend on it.
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def subprocess_timeout():
    return SUBPROCESS_TIMEOUT_S


@pytest.fixture(scope="session")
def data():
    return build_dataset()


@pytest.fixture(scope="session")
def trained(data):
    """trained(steps=..., seed=..., **switches) -> RunResult, trained once per session per key."""
    cache = {}

    def get(steps=FEW_STEPS, seed=0, detect_anomaly=False, **switches):
        key = (steps, seed, detect_anomaly, tuple(sorted(switches.items())))
        if key not in cache:
            settings = TrainConfig(steps=steps, seed=seed, detect_anomaly=detect_anomaly)
            cache[key] = train(model_config(data, **switches), settings, data)
        return cache[key]

    return get


@pytest.fixture(scope="session")
def few_steps():
    return FEW_STEPS


@pytest.fixture(scope="session")
def run_control(trained):
    """Run A (the out-of-place residual), short."""
    return trained()


@pytest.fixture(scope="session")
def minigpt_command():
    """The argv prefix that runs the CLI exactly as the justfile does (python -m minigpt)."""
    return [sys.executable, "-m", "minigpt"]
