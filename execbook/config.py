"""The facts the book, its tests, nox and the CI workflow share, each declared once.

The book is the folder of the nearest pyproject.toml with a [tool.book] table, from the current
directory up (or BOOK_ROOT: `python -m execbook --root DIR`), not this file's. Read from its
[tool.book] table (languages, titles, recorded releases, URLs), its [project] dependencies (the
torch range the book is built on) and constraints.txt (the torch release that installs by
default). Everything else derives from here. This file imports only the standard library (and
`packaging`, when a release is compared), so that a bare Python can run it:

    python3 execbook/config.py releases        # JSON list of the recorded releases (the workflow's matrix)
    python3 execbook/config.py book-releases   # those inside the book's torch range
    python3 execbook/config.py second-release  # the release CI checks beside the default
    python3 execbook/config.py notebooks-branch  # where the workflow publishes the notebooks Colab opens
"""

import json
import os
import re
import sys
import tomllib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

ROOT_ENV = "BOOK_ROOT"  # the book's folder (python -m execbook --root DIR sets it; its processes inherit it)


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
    raise SystemExit(
        f"execbook: error: no book in {here} or above it (a pyproject.toml with a [tool.book] table): "
        "run it in the book's folder, or pass --root DIR"
    )


REPO = _book_root()
SOURCES = ("pyproject.toml", "constraints.txt")  # the files this module reads (execbook.deps counts them)
_PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
_BOOK = _PYPROJECT["tool"]["book"]

LANGUAGES: dict[str, str] = dict(_BOOK["languages"])  # code -> name, in build order
TITLES: dict[str, str] = dict(_BOOK["titles"])
RECORDED_RELEASES: list[str] = list(_BOOK.get("recorded-releases", []))
SECOND_RELEASE: str = _BOOK.get("second-release", "")
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
# The engine's words on a page that the book changes or adds, per language (execbook/sphinxext/words.py).
BOOK_WORDS: dict[str, dict[str, str]] = {k: dict(v) for k, v in _BOOK.get("words", {}).items()}
# Lines of Python each part may have at most (python -m execbook sizes): a package's name, or "total".
SIZE_TARGETS: dict[str, int] = dict(_BOOK.get("sizes", {}))
# The module whose import says "this project is installed" (a Colab notebook's first cell).
PROJECT_MODULE: str = _BOOK.get("project-module", "")

DEPENDENCIES: list[str] = list(_PYPROJECT["project"].get("dependencies", []))
TORCH_REQUIREMENT: str = next((d for d in DEPENDENCIES if re.match(r"torch\b", d)), "torch")
# `just`, which runs the reproducer's commands (the docs extra installs it; so does a Colab notebook)
JUST_REQUIREMENT: str = next(
    (d for d in _PYPROJECT["project"].get("optional-dependencies", {}).get("docs", []) if re.match(r"rust-just\b", d)),
    "",
)
TEST_REQUIREMENTS: list[str] = list(_PYPROJECT["project"].get("optional-dependencies", {}).get("test", []))
_CONSTRAINTS = REPO / "constraints.txt"
_TORCH_PIN = re.search(
    r"^torch==(\S+)", _CONSTRAINTS.read_text(encoding="utf-8") if _CONSTRAINTS.is_file() else "", re.M
)
DEFAULT_TORCH: str = _TORCH_PIN.group(1) if _TORCH_PIN else ""
# This repository's importable packages: its top-level folders with an __init__.py.
PACKAGES: tuple[str, ...] = tuple(sorted(p.parent.name for p in REPO.glob("*/__init__.py")))
# Its top-level folders that are distributions of their own (a pyproject.toml there), which the
# project depends on: a reader installs them beside it (pip's #subdirectory=).
SUBPROJECTS: tuple[str, ...] = tuple(sorted(p.parent.name for p in REPO.glob("*/pyproject.toml")))

# Where things live
DOCS = REPO / "docs"
EXAMPLES = REPO / "examples"
MANIFEST = EXAMPLES / "cases.toml"
RECORDS = REPO / "records"
BUILD = DOCS / "_build"
SITE = BUILD / "html"
STORE = BUILD / "store"  # the results one build shares between its pages (execbook.store)
EXECUTION_CACHE = BUILD / ".jupyter_cache"
EXECUTION_REPORT = BUILD / "execution.json"
COLAB = BUILD / "colab"  # the notebooks Colab opens, <language>/<page>.ipynb (the workflow publishes them)
STORE_ENV = "BOOK_STORE"  # set by the build for the pages' kernels; unset, results live in the process


@cache
def hook(name: str) -> Callable[..., Any] | None:
    """The book's callable named by [tool.book.hooks] `name`, imported once; None if none is named."""
    if name not in HOOKS:
        return None
    from importlib import import_module

    module, _, function = HOOKS[name].partition(":")
    return getattr(import_module(module), function)


def environment(store: Path) -> dict[str, str]:
    """The variables a build with this result store sets for its pages and the processes they start."""
    given = {name: value.replace("{store}", str(store)) for name, value in ENVIRONMENT.items()}
    return {**given, STORE_ENV: str(store)}


def release(version: str) -> str:
    """'2.13.0+cpu' -> '2.13.0' (the local build tag is not part of the release)."""
    return version.split("+")[0]


def release_key(name: str) -> tuple[int, ...]:
    """'2.13.0' -> (2, 13, 0), so that releases sort as numbers."""
    numbers = tuple(int(n) for n in re.findall(r"\d+", release(name))[:3])
    return numbers + (0,) * (3 - len(numbers))


def supported(release_name: str) -> bool:
    """Is this release inside the torch range the book is built on (pyproject.toml)?"""
    from packaging.requirements import Requirement

    return Requirement(TORCH_REQUIREMENT).specifier.contains(release(release_name))


if __name__ == "__main__":
    answers = {
        "releases": lambda: json.dumps(RECORDED_RELEASES),
        "book-releases": lambda: json.dumps(
            [r for r in RECORDED_RELEASES if supported(r)]
        ),  # the others: a record only
        "second-release": lambda: SECOND_RELEASE,
        "default-torch": lambda: DEFAULT_TORCH,
        "notebooks-branch": lambda: NOTEBOOKS_BRANCH,
    }
    if len(sys.argv) != 2 or sys.argv[1] not in answers:
        sys.exit(f"usage: python3 execbook/config.py {{{','.join(answers)}}}")
    print(answers[sys.argv[1]]())
