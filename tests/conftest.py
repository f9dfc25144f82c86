"""Shared fixtures: the data set, cached short training runs, and a runner for the CLI.

Training is the expensive part of the suite, so every run is made once per session and
shared. Runs are short (FEW_STEPS) wherever the behaviour under test does not depend on the
number of steps: the step-0 probe gradients, for example, are taken before the first update.
"""

import os
import subprocess
import sys
import tempfile
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


# --- every example, run once in a background process (tests/run_examples.py) while the other
# tests run: test_examples.py reads what each did, test_deps.py what each opened.

_examples = {}


# End-to-end tests (nox -s e2e): whole builds of the book, the browser, the reproducer through
# `just`. They are marked here, from what they use, rather than one by one.
E2E_FIXTURES = {"site", "built_copy", "reproducer"}
E2E_MODULES = {"test_build_output"}


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: an end-to-end test (whole builds, the browser, just): nox -s e2e")


@pytest.hookimpl(tryfirst=True)  # before -m selects by marker
def pytest_collection_modifyitems(items):
    for item in items:
        if E2E_FIXTURES & set(item.fixturenames) or item.module.__name__ in E2E_MODULES:
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(trylast=True)  # after -m and -k chose the tests to run
def pytest_collection_finish(session):
    items = session.items
    waiting = [item for item in items if "example_results" in item.fixturenames]
    if waiting and not session.config.option.collectonly:  # last: the other tests run meanwhile
        items[:] = [item for item in items if item not in waiting] + waiting
        out = Path(tempfile.mkdtemp()) / "examples.json"
        env = dict(os.environ, OMP_NUM_THREADS="1", MPLBACKEND="Agg")
        for variable in ("BOOK_STORE", "MINIGPT_RUN_CACHE"):  # every example computes what it shows
            env.pop(variable, None)
        _examples.update(out=out, process=subprocess.Popen(
            [sys.executable, str(REPO / "tests" / "run_examples.py"), str(out)], cwd=REPO, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))


def pytest_sessionfinish(session, exitstatus):
    if "process" in _examples and _examples["process"].poll() is None:
        _examples["process"].kill()


@pytest.fixture(scope="session")
def example_results():
    """name -> {"ok", "failure", "seconds", "opened"} of every example in examples/cases.toml."""
    import json

    output, _ = _examples["process"].communicate(timeout=SUBPROCESS_TIMEOUT_S)
    assert _examples["process"].returncode == 0, f"tests/run_examples.py failed:\n{output[-3000:]}"
    return json.loads(_examples["out"].read_text(encoding="utf-8"))
