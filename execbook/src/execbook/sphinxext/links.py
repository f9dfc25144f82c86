"""Where a reader finds a page's source (on GitHub) and runs its notebook in Colab (which opens
notebooks from GitHub only: the deploy workflow publishes docs/_build/colab/ on the notebooks branch).
The Colab notebook's first code cell, INSTALL, installs the project without its dependencies, so
that pip keeps Colab's torch instead of a CUDA build of gigabytes."""

import shutil
import subprocess
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

from sphinx.application import Sphinx

from .. import config

COLAB_URL = "https://colab.research.google.com/github/"

# The first code cell of a Colab notebook (80 columns, like the code a page shows).
INSTALL = """\
# In Colab (or any Python without this project): install it from the
# repository's address, without its dependencies, so that Colab's own torch,
# numpy and matplotlib stay. Where the project is installed, this does nothing.
import importlib
import subprocess
import sys

try:
    import {module}  # noqa: F401
except ModuleNotFoundError:
    project = "git+{repository}@{branch}"
    # the repository's folders that are distributions of their own, needed too
    parts = {subprojects}
    parts = [f"{{project}}#subdirectory={{part}}" for part in parts]
    also = {also}  # what the book installs beside it
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                    "--no-deps", project, *parts, *also], check=True)
    importlib.invalidate_caches()  # this kernel imports what pip installed
"""
INSTALL_DEPENDENCIES = """\
# In Colab (or any Python without what this book's pages import): install it.
import subprocess
import sys

wanted = {wanted}
subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *wanted],
               check=True)
"""


def github_repository(repository: str) -> tuple[str, str]:
    """'https://github.com/owner/name' -> ('owner', 'name'): Colab opens notebooks from GitHub only."""
    parts = urlsplit(repository)
    path = parts.path.strip("/").removesuffix(".git").split("/")
    if parts.netloc != "github.com" or len(path) != 2 or not all(path):
        raise ValueError(
            f"pyproject.toml [tool.book] repository: {repository!r} is not https://github.com/<owner>/<name>"
        )
    return path[0], path[1]


def install_cell() -> str | None:
    """The code of a Colab notebook's first code cell; None for a book that installs nothing."""
    if not config.PROJECT_MODULE:
        wanted = [*config.DEPENDENCIES, *config.COLAB_INSTALL]
        return INSTALL_DEPENDENCIES.format(wanted=wanted).rstrip("\n") if wanted else None
    return INSTALL.format(
        branch=config.SOURCE_BRANCH,
        repository=config.REPOSITORY,
        also=config.COLAB_INSTALL,
        module=config.PROJECT_MODULE,
        subprojects=list(config.SUBPROJECTS),
    ).rstrip("\n")


def pip_arguments() -> str:
    """What `pip install` takes to install the project from its address, its subprojects first."""
    if not config.PROJECT_MODULE:
        return " ".join(f'"{wanted}"' for wanted in config.DEPENDENCIES)
    parts = [f'"git+{config.REPOSITORY}#subdirectory={part}"' for part in config.SUBPROJECTS]
    return " ".join([*parts, f'"git+{config.REPOSITORY}"'])


@cache
def book_folder() -> str:
    """The book's folder in its repository, as git names it ("execbook/docs/"); "" at its root, or outside one."""
    done = subprocess.run(["git", "rev-parse", "--show-prefix"], cwd=config.REPO, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def source_url(language: str, source: str) -> str:
    """The page's source file in the repository; source: its path inside docs/<language>/."""
    return f"{config.REPOSITORY}/blob/{config.SOURCE_BRANCH}/{book_folder()}docs/{language}/{source}"


def colab_url(language: str, pagename: str) -> str:
    owner, name = github_repository(config.REPOSITORY)
    return f"{COLAB_URL}{owner}/{name}/blob/{config.NOTEBOOKS_BRANCH}/{language}/{pagename}.ipynb"


def colab_file(language: str, pagename: str) -> Path:
    """Where the build writes the page's Colab notebook (its path in the notebooks branch, under config.COLAB)."""
    return config.COLAB.joinpath(language, *f"{pagename}.ipynb".split("/"))


def clear_colab_notebooks(app: Sphinx) -> None:
    """A language's Colab notebooks are those this build writes (it writes every page: a fresh outdir)."""
    if app.builder.format == "html":
        shutil.rmtree(config.COLAB / app.config.language, ignore_errors=True)


def setup(app: Sphinx) -> None:
    github_repository(config.REPOSITORY)  # a repository Colab cannot open fails the build, not the reader's click
    app.connect("builder-inited", clear_colab_notebooks)
