"""The facts the book, its tests, nox and the CI workflow share, each declared once.

Read from pyproject.toml's [tool.book] table (languages, titles, recorded releases, URLs), its
[project] dependencies (the torch range the book is built on) and constraints.txt (the torch
release that installs by default). Everything else derives from here. This file imports only the
standard library (and `packaging`, when a release is compared), so that a bare Python can run it:

    python3 book/config.py releases        # JSON list of the recorded releases (the workflow's matrix)
    python3 book/config.py book-releases   # those inside the book's torch range
    python3 book/config.py second-release  # the release CI checks beside the default
    python3 book/config.py notebooks-branch  # where the workflow publishes the notebooks Colab opens
"""

import json
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "constraints.txt")  # the files this module reads (book.deps counts them)
_PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
_BOOK = _PYPROJECT["tool"]["book"]

LANGUAGES: dict[str, str] = dict(_BOOK["languages"])  # code -> name, in build order
TITLES: dict[str, str] = dict(_BOOK["titles"])
RECORDED_RELEASES: list[str] = list(_BOOK["recorded-releases"])
SECOND_RELEASE: str = _BOOK["second-release"]
SITE_URL: str = _BOOK["site-url"].rstrip("/") + "/"
REPOSITORY: str = _BOOK["repository"].rstrip("/")
COURSE_URL: str = _BOOK["course-url"]
SOURCE_BRANCH: str = _BOOK["source-branch"]
NOTEBOOKS_BRANCH: str = _BOOK["notebooks-branch"]

DEPENDENCIES: list[str] = list(_PYPROJECT["project"]["dependencies"])
TORCH_REQUIREMENT: str = next(d for d in DEPENDENCIES if re.match(r"torch\b", d))
# `just`, which runs the reproducer's commands (the docs extra installs it; so does a Colab notebook)
JUST_REQUIREMENT: str = next(d for d in _PYPROJECT["project"]["optional-dependencies"]["docs"]
                             if re.match(r"rust-just\b", d))
_TORCH_PIN = re.search(r"^torch==(\S+)", (REPO / "constraints.txt").read_text(encoding="utf-8"), re.M)
assert _TORCH_PIN is not None, "constraints.txt pins no torch release (torch==...)"
DEFAULT_TORCH: str = _TORCH_PIN.group(1)

# Where things live
DOCS = REPO / "docs"
EXAMPLES = REPO / "examples"
MANIFEST = EXAMPLES / "cases.toml"
RECORDS = REPO / "records"
BUILD = DOCS / "_build"
SITE = BUILD / "html"
STORE = BUILD / "store"  # the results one build shares between its pages (book.store)
EXECUTION_CACHE = BUILD / ".jupyter_cache"
EXECUTION_REPORT = BUILD / "execution.json"
COLAB = BUILD / "colab"  # the notebooks Colab opens, <language>/<page>.ipynb (the workflow publishes them)
STORE_ENV = "BOOK_STORE"  # set by the build for the pages' kernels; unset, results live in the process


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


def book_releases() -> list[str]:
    """The recorded releases the book is built on (the others get a record only)."""
    return [r for r in RECORDED_RELEASES if supported(r)]


if __name__ == "__main__":
    answers = {"releases": lambda: json.dumps(RECORDED_RELEASES), "book-releases": lambda: json.dumps(book_releases()),
               "second-release": lambda: SECOND_RELEASE, "default-torch": lambda: DEFAULT_TORCH,
               "notebooks-branch": lambda: NOTEBOOKS_BRANCH}
    if len(sys.argv) != 2 or sys.argv[1] not in answers:
        sys.exit(f"usage: python3 book/config.py {{{','.join(answers)}}}")
    print(answers[sys.argv[1]]())
