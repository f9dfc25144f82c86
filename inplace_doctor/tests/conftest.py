"""The diagnoser's own tests: they need torch, pytest and, for the notebook and the wheel,
nbclient, ipykernel, build and twine; nothing of the repository around this folder."""

import os
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]  # the pytest plugin's tests run pytest in a temporary folder

SUBPROCESS_TIMEOUT_S = 300


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "e2e: a slow test (a wheel in a fresh venv, kernels, torchrun, pytest runs, the tensor kinds' programs)",
    )


@pytest.fixture(scope="session")
def tool_env() -> dict[str, str]:
    """The environment for subprocesses: this interpreter's bin directory first on PATH, one
    intra-op thread (several run at once on a small machine; exit codes and texts do not depend on it)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("PYTHONPATH", None)
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


@pytest.fixture(scope="session")
def subprocess_timeout() -> int:
    return SUBPROCESS_TIMEOUT_S
