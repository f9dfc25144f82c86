"""nox -s tests | nox -s e2e | nox -s docs | nox -s bench | nox -s "drift(torch='2.12.1')"

BOOK_TORCH=2.12.1 nox -s docs builds the book on another release (the docs workflow's matrix).
"""

import os

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests"]

CONSTRAINTS = ("-c", "constraints.txt")  # torch==2.13.0: the local CPU wheel, not a CUDA build
DEFAULT_TORCH = "2.13.0"
# The releases the package supports (pyproject.toml); records/ holds those measured so far.
TORCH_RELEASES = ["2.10.0", "2.11.0", "2.12.1", "2.13.0", "2.14.1", "2.15.0"]


def install(session, extras="", torch=None):
    """The package (with extras) on one torch release: BOOK_TORCH, else the pinned default."""
    torch = torch or os.environ.get("BOOK_TORCH") or DEFAULT_TORCH
    pins = CONSTRAINTS if torch == DEFAULT_TORCH else ()
    session.install(*pins, f"torch=={torch}", "-e", f".[{extras}]" if extras else ".")


@nox.session
def tests(session):
    """Every test but the end-to-end ones (docs too: the page and example tests read the pages)."""
    install(session, "test,docs")
    session.run("pytest", "-m", "not e2e", *session.posargs)


@nox.session
def e2e(session):
    """The end-to-end tests: whole builds of the book, the real browser, the reproducer via just."""
    install(session, "test,docs")
    session.run("pytest", "-m", "e2e", *session.posargs)


@nox.session
def docs(session):
    install(session, "docs")
    session.run("python", "docs/build.py", *session.posargs)


@nox.session
@nox.parametrize("torch", TORCH_RELEASES)
def drift(session, torch):
    """Check every claim on one torch release and record what it prints.

    nox -s "drift(torch='2.12.1')"            writes records/torch-2.12.1.json, says what changed
    nox -s "drift(torch='2.12.1')" -- check   fails if a claim broke or that record is stale
    Releases other than 2.13.0 install from PyPI as full CUDA builds (~5 GB); they run on CPU.
    """
    install(session, torch=torch)
    session.run("python", "-m", "drift", *(session.posargs or ["record"]), env={"OMP_NUM_THREADS": "1"})


@nox.session
def bench(session):
    """Figures, not timed tests: nox -s bench [-- docs_build|train_speed|diagnose_overhead]"""
    install(session, "test,docs")  # docs_build also times the test suite
    for script in session.posargs or ["docs_build", "train_speed", "diagnose_overhead"]:
        session.run("python", f"bench/{script}.py")
