"""The facts the book, its tests, nox and the CI workflow share, each declared once.

The book is the folder of the nearest pyproject.toml with a [tool.book] table, from the current
directory up (or BOOK_ROOT: `python -m execbook --root DIR`), not this file's. Read from its
[tool.book] table (languages, titles, URLs, hooks). Everything else derives from here. This file
imports only the standard library, so that a bare Python can run it:

    python3 execbook/src/execbook/config.py notebooks-branch  # where the workflow publishes the notebooks Colab opens
"""

import os
import pkgutil
import re
import sys
import tomllib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

ROOT_ENV = "BOOK_ROOT"  # the book's folder (python -m execbook --root DIR sets it; its processes inherit it)


class NoBook(LookupError):
    """No book in `searched` or above it: python -m execbook says so in one line."""

    def __init__(self, searched: Path) -> None:
        super().__init__(
            f"no book in {searched} or above it (a pyproject.toml with a [tool.book] table): "
            "run it in the book's folder, or pass --root DIR"
        )
        self.searched = searched


def _book_root() -> Path:
    """BOOK_ROOT, else the nearest folder from the current directory up whose pyproject.toml has a
    [tool.book] table: the engine builds the book it is run in, wherever the engine is installed."""
    if os.environ.get(ROOT_ENV):
        return Path(os.environ[ROOT_ENV]).resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        project = folder / "pyproject.toml"
        if project.is_file() and "book" in tomllib.loads(project.read_text(encoding="utf-8")).get("tool", {}):
            return folder
    raise NoBook(here)


SOURCES = ("pyproject.toml",)  # the file this module reads (execbook.deps counts it)
STORE_ENV = "BOOK_STORE"  # set by the build for the pages' kernels; unset, results live in the process


@cache
def _book() -> dict[str, Any]:
    REPO = _book_root()
    _PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    _BOOK = _PYPROJECT["tool"]["book"]

    LANGUAGES: dict[str, str] = dict(_BOOK["languages"])  # code -> name, in build order
    TITLES: dict[str, str] = dict(_BOOK["titles"])
    SITE_URL: str = _BOOK["site-url"].rstrip("/") + "/"
    REPOSITORY: str = _BOOK["repository"].rstrip("/")
    COURSE_URL: str = _BOOK.get("course-url", "")
    AUTHORS: dict[str, str] = dict(_BOOK.get("authors", {}))  # language -> the pages' author
    COURSE_LINK: dict[str, str] = dict(_BOOK.get("course-link", {}))  # language -> "phase %s" ({phase}`8`)
    TOCTREE_TAIL: list[str] = list(_BOOK.get("toctree-tail", []))  # pages that stay last in the index
    SOURCE_BRANCH: str = _BOOK.get("source-branch", "main")
    NOTEBOOKS_BRANCH: str = _BOOK.get("notebooks-branch", "notebooks")
    # What the engine reaches of the book's own code, by name ("module:function", imported when first
    # called; a book without them runs without): precompute(workers) computes what several pages share
    # before any page runs; check_entry(name, entry) -> problem or None judges a manifest entry's keys
    # beyond the engine's; judge(case, outcome) -> outcome refines the engine's verdict on one run;
    # report() -> lines the build prints after a build that executed pages (notes of the book's own).
    HOOKS: dict[str, str] = dict(_BOOK.get("hooks", {}))
    # What the build sets in its pages' environment (a book's own code reads it: its cache, say); "{store}"
    # in a value is the build's result store (environment()).
    ENVIRONMENT: dict[str, str] = dict(_BOOK.get("environment", {}))
    # The installed distributions whose release is part of every page's fingerprint (a new one re-runs them).
    FINGERPRINTED: list[str] = list(_BOOK.get("fingerprinted", []))
    # The distributions whose installed versions the status page names ({{ numpy }}), beside Python's,
    # the engine's and the fingerprinted ones.
    VERSIONS: list[str] = list(_BOOK.get("versions", []))
    # The engine's words on a page that the book changes or adds, per language (execbook.sphinxext.words).
    BOOK_WORDS: dict[str, dict[str, str]] = {k: dict(v) for k, v in _BOOK.get("words", {}).items()}

    # `just`, which runs the reproducer's commands (the docs extra installs it; so does a Colab notebook)
    _docs_extra = _PYPROJECT["project"].get("optional-dependencies", {}).get("docs", [])
    JUST_REQUIREMENT: str = next((d for d in _docs_extra if re.match(r"rust-just\b", d)), "")
    # This repository's importable packages, name -> folder: its top-level folders with an __init__.py,
    # and those of its distributions in the src layout (<distribution>/src/<package>/).
    PACKAGE_DIRS: dict[str, Path] = {p.parent.name: p.parent for p in sorted(REPO.glob("*/__init__.py"))} | {
        p.parent.name: p.parent for p in sorted(REPO.glob("*/src/*/__init__.py"))
    }
    PACKAGES: tuple[str, ...] = tuple(sorted(PACKAGE_DIRS))
    # Its top-level folders that are distributions of their own (a pyproject.toml there), which the
    # project depends on: a reader installs them beside it (pip's #subdirectory=).
    SUBPROJECTS: tuple[str, ...] = tuple(sorted(p.parent.name for p in REPO.glob("*/pyproject.toml")))
    # The module whose import says "this project is installed" (a Colab notebook's first cell), if any
    PROJECT_MODULE: str = _BOOK.get("project-module") or next(iter(PACKAGES), "")

    # Where things live
    DOCS = REPO / "docs"
    EXAMPLES = REPO / "examples"
    MANIFEST = EXAMPLES / "cases.toml"
    BUILD = DOCS / "_build"
    SITE = BUILD / "html"
    STORE = BUILD / "store"  # the results one build shares between its pages (execbook.store)
    EXECUTION_CACHE = BUILD / ".jupyter_cache"
    EXECUTION_REPORT = BUILD / "execution.json"
    SITES = BUILD / "sites"  # each build's site: docs/_build/html links to the last good one (publish)
    GLUE_VALUES, GLUE_CHANGES = BUILD / "glue-values.json", BUILD / "glue-changes.txt"  # execbook.gluereport
    COLAB = BUILD / "colab"  # the notebooks Colab opens, <language>/<page>.ipynb (the workflow publishes them)
    return locals()


def __getattr__(name: str) -> Any:
    """A setting of the book (config.LANGUAGES), read when one is first asked for: importing needs no book."""
    if name.startswith("_") or name not in _book():
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _book()[name]


@cache
def hook(name: str) -> Callable[..., Any] | None:
    """The book's callable named by [tool.book.hooks] `name`, imported once; None if none is named."""
    return pkgutil.resolve_name(hooks[name]) if name in (hooks := _book()["HOOKS"]) else None  # "module:function"


def environment(store: Path) -> dict[str, str]:
    """The variables a build with this result store sets for its pages and the processes they start."""
    given = {name: value.replace("{store}", str(store)) for name, value in _book()["ENVIRONMENT"].items()}
    return {**given, STORE_ENV: str(store)}


if __name__ == "__main__":
    if sys.argv[1:] != ["notebooks-branch"]:
        sys.exit("usage: python3 execbook/src/execbook/config.py notebooks-branch")
    print(_book()["NOTEBOOKS_BRANCH"])
