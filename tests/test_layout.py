"""The distributions' src layout (execbook/src/execbook/, inplace_doctor/src/inplace_doctor/): what pip and
build leave in a checkout (build/, *.egg-info/, dist/) is never imported, walked or counted as the
project's code, so the tests that walk files pass after `pip install ./execbook`."""

import os
import shutil
import subprocess
import sys

import pytest

import execbook
from execbook import config

pytestmark = pytest.mark.e2e  # builds three distributions and runs a part of the suite again

# The tests that walk the checkout's files: the sizes, the private-API and module checks, the imports
# of every engine module, the folders an example reads.
# execbook/tests first, as in pyproject.toml's testpaths: tests/ modules import from their conftest.py by name.
WALKERS = [
    "execbook/tests/test_engine_reuse.py::test_every_engine_module_imports_outside_a_book_whose_first_use_names_the_folder",
    "tests/test_sizes.py",
    "tests/test_repository.py",
    "tests/test_deps.py::test_a_folder_an_example_reads_is_what_git_tracks_there",
]


def test_the_tests_that_walk_files_pass_after_pip_and_build_ran_in_the_checkout(tmp_path):
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=config.REPO, capture_output=True, check=True
    ).stdout.decode()
    copy = tmp_path / "checkout"
    for name in filter(None, listed.split("\0")):
        if (config.REPO / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(config.REPO / name, copy / name)
    offline = ["--no-deps", "--no-build-isolation", "--no-index", "--quiet"]
    steps = [
        ["pip", "install", *offline, "--target", str(tmp_path / "target"), "./execbook"],
        ["pip", "wheel", *offline, "--wheel-dir", str(tmp_path / "wheels"), "./inplace_doctor"],
        ["build", "--no-isolation", "--outdir", str(tmp_path / "dist"), "./execbook"],
    ]
    for step in steps:
        done = subprocess.run([sys.executable, "-m", *step], cwd=copy, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
    left = {p.relative_to(copy).as_posix() for p in copy.glob("*/build")} | {
        p.relative_to(copy).as_posix() for p in copy.glob("*/src/*.egg-info")
    }
    assert "execbook/build" in left, f"the check needs what pip leaves in the checkout: {sorted(left)}"
    # pip installs the engine's console script (execbook/pyproject.toml [project.scripts]) beside it
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "target"))
    script = tmp_path / "target" / "bin" / "execbook"  # a Python script: run by this Python
    done = subprocess.run([sys.executable, script, "--version"], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == f"execbook {execbook.__version__}\n", done.stderr
    walked = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "", *WALKERS],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert walked.returncode == 0, walked.stdout[-4000:] + walked.stderr[-2000:]
