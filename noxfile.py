"""nox -s tests | nox -s docs | nox -s bench"""

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests"]

CONSTRAINTS = ("-c", "constraints.txt")  # torch==2.13.0: the local CPU wheel, not a CUDA build


@nox.session
def tests(session):
    # docs too: the site tests build the book (incrementally) before opening it
    session.install(*CONSTRAINTS, "-e", ".[test,docs]")
    session.run("pytest", *session.posargs)


@nox.session
def docs(session):
    session.install(*CONSTRAINTS, "-e", ".[docs]")
    session.run("python", "docs/build.py", *session.posargs)


@nox.session
def bench(session):
    session.install(*CONSTRAINTS, "-e", ".")
    session.run("python", "bench/train_speed.py", *session.posargs)
