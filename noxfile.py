"""nox -s tests | nox -s e2e | nox -s docs | nox -s check | nox -s new-page -- SLUG | nox -s bench | nox -s engine-docs
nox -s "drift(torch='2.12.1')" | nox -s ci-container (root; .ci/run in a clean Debian root, not part of CI)

BOOK_TORCH=2.12.1 nox -s docs builds the book on another release of the book's range (the docs
workflow's matrix); nox -s "drift(torch='1.13.1')" records any of the recorded releases
(pyproject.toml [tool.book]).
"""

import os
import runpy
import sys
from pathlib import Path

import nox
from packaging.requirements import Requirement
from packaging.version import Version

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests"]

# The facts nox shares with the lesson (pyproject.toml's [tool.phase25], constraints.txt), read by
# phase25/releases.py: the default torch, the recorded releases, the book's torch range.
BOOK = runpy.run_path(str(Path(__file__).parent / "phase25" / "releases.py"))
CONSTRAINTS = ("-c", "constraints.txt")  # the default torch: the local CPU wheel, not a CUDA build
DEFAULT_TORCH = BOOK["default_torch"]()
NUMPY_2_FROM = Version("2.3")  # torch wheels before 2.3 were built against NumPy 1.x: they need numpy<2
# A machine-wide pip constraint file may cap torch (this machine's caps it below the newest release):
# a release other than the default installs exactly as asked, with only the project's own pins.
NO_MACHINE_CONSTRAINTS = {"PIP_CONSTRAINT": os.devnull}
# The linters, as the test extra pins them (lint-imports reads the packages' source, not an install).
LINTERS = [r for r in BOOK["TEST_REQUIREMENTS"] if Requirement(r).name in ("ruff", "import-linter")]


# The diagnoser and the book engine are distributions of their own (inplace_doctor/, execbook/) that the
# project depends on: all install from this checkout, editable, in one pip command (pip takes the local
# ones for the dependencies).
SUBPROJECTS = ("-e", "./inplace_doctor", "-e", "./execbook")


def install(session, extras="", torch=None):
    """The package (with extras), the diagnoser's and the engine's, on one torch release: BOOK_TORCH,
    else the pinned default."""
    torch = torch or os.environ.get("BOOK_TORCH") or DEFAULT_TORCH
    pins, machine = (CONSTRAINTS, None) if torch == DEFAULT_TORCH else ((), NO_MACHINE_CONSTRAINTS)
    first = not list(Path(session.virtualenv.location).glob("lib/*/site-packages/torch"))
    if first:  # minutes of downloads: say what and how big, and let pip show its progress
        session.log(
            f"installing torch {torch} and the book's packages into {session.virtualenv.location}: about 1.7 GB "
            "with torch's CPU build (a 190 MB download), about 5 GB with PyPI's CUDA build (README)"
        )
    packages = (*pins, f"torch=={torch}", *SUBPROJECTS, "-e", f".[{extras}]" if extras else ".")
    session.install(*packages, env=machine, silent=not first)


@nox.session(venv_backend="none")
def tests(session):
    """Every test but the end-to-end ones, over the machine's cores (tests/conftest.py), after the import
    contracts and mypy; then ruff (nox -s lint). Runs in the book's environment."""
    in_book_environment(session, "lint-imports")  # the contracts of pyproject.toml's [tool.importlinter]
    in_book_environment(session, "mypy", fresh=False)  # the packages pyproject.toml's [tool.mypy] names
    in_book_environment(session, "pytest", "-m", "not e2e", *session.posargs, fresh=False)
    session.notify("lint")


@nox.session
def lint(session):
    """ruff's lint and format check ([tool.ruff]) and the import contracts."""
    session.install("-c", "constraints.txt", *LINTERS)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    # the distributions' packages from their src folders (this checkout's root holds the others)
    session.run("lint-imports", env={"PYTHONPATH": os.pathsep.join(["execbook/src", "inplace_doctor/src"])})


@nox.session(venv_backend="none")
def e2e(session):
    """The end-to-end tests: builds (the book, the engine's tiny books), kills, venvs, the browser, just."""
    in_book_environment(session, "pytest", "-m", "e2e", *session.posargs)


@nox.session
def docs(session):
    """Build the book (Spanish, then English): nox -s docs [-- es|en]. Its environment is the book's one
    environment: docs, tests, e2e, bench, check and new-page all run in it (one torch, not one each)."""
    install(session, "test,docs")
    session.run("python", "-m", "execbook", "build", *session.posargs)


BOOK_BIN = Path(__file__).parent / ".nox" / "docs" / "bin"  # the one environment (nox -s docs makes it)


def in_book_environment(session, program, *arguments, fresh=True):
    """Run BOOK_BIN/PROGRAM ARGUMENTS. fresh: install first (nox -s docs --install-only: seconds when
    nothing changed), as a session with its own environment would; otherwise only where it is missing."""
    if fresh or not (BOOK_BIN / program).exists():
        session.run(sys.executable, "-m", "nox", "-f", __file__, "-s", "docs", "--install-only", external=True)
    environment = {"PATH": os.pathsep.join([str(BOOK_BIN), os.environ["PATH"]]), "VIRTUAL_ENV": str(BOOK_BIN.parent)}
    session.run(str(BOOK_BIN / program), *arguments, env=environment, external=True)


@nox.session(name="new-page", venv_backend="none")
def new_page(session):
    """Write a new page in both languages with one example: nox -s new-page -- <slug> (docs environment)."""
    in_book_environment(session, "python", "-m", "execbook", "new-page", *session.posargs, fresh=False)


@nox.session(name="engine-docs", venv_backend="none")
def engine_docs(session):
    """Build the engine's own documentation, execbook/docs (an execbook book; no torch), in the docs
    environment: nox -s engine-docs [-- es|en]. Its site: execbook/docs/docs/_build/html/. Cold (about
    a minute): its pages run the engine, whose edits in this checkout no fingerprint of that book sees."""
    session.chdir("execbook/docs")
    in_book_environment(session, "python", "-m", "execbook", "build", "--cold", *session.posargs, fresh=False)


@nox.session(venv_backend="none")
def check(session):
    """Check the sources in seconds, executing nothing: nox -s check (docs environment)."""
    in_book_environment(session, "python", "-m", "execbook", "check", *session.posargs, fresh=False)


@nox.session
@nox.parametrize("torch", BOOK["RECORDED_RELEASES"])
def drift(session, torch):
    """Check every claim on one torch release and record what it prints.

    nox -s "drift(torch='2.12.1')"            writes records/torch-2.12.1.json, says what changed
    nox -s "drift(torch='2.12.1')" -- check   fails if a claim broke or that record is stale
    Any recorded release installs, inside pyproject.toml's range or not: torch first, then the package
    without its dependencies, then the few the drift code needs (numpy<2 with a torch built against
    NumPy 1.x). Releases other than 2.13.0 install from PyPI as full CUDA builds (~5 GB; they run on
    CPU): remove the environment afterwards, rm -r .nox/drift-torch-*.
    """
    pins = CONSTRAINTS if torch == DEFAULT_TORCH else ()
    session.install("--no-cache-dir", *pins, f"torch=={torch}", env=NO_MACHINE_CONSTRAINTS)
    session.install("--no-deps", *SUBPROJECTS, "-e", ".")
    others = [d for d in BOOK["DEPENDENCIES"] if Requirement(d).name not in ("torch", "inplace-doctor", "execbook")]
    numpy = ["numpy<2"] if Version(torch) < NUMPY_2_FROM else []
    session.install(*others, *numpy, env=NO_MACHINE_CONSTRAINTS)
    session.run("python", "-m", "phase25", *(session.posargs or ["record"]), env={"OMP_NUM_THREADS": "1"})


@nox.session(venv_backend="none")
def bench(session):
    """Figures, not timed tests: nox -s bench [-- docs_build|train_speed|diagnose_overhead]"""
    for i, script in enumerate(session.posargs or ["docs_build", "train_speed", "diagnose_overhead"]):
        in_book_environment(session, "python", f"bench/{script}.py", fresh=i == 0)


@nox.session(name="ci-container", python=False)
def ci_container(session):
    """.ci/run in a clean Debian bookworm root, as the workflow's container (root; long; not in CI):
    nox -s ci-container [-- --find-links DIR] [--keep]  (.ci/container.py)."""
    session.run("python3", ".ci/container.py", *session.posargs, external=True)
