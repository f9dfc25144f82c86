"""What an executed example depends on, and a fingerprint of it.

An example depends on its own file, on every file of each package of this repository that it
imports (directly or through another of these packages) or that runs its publisher (book), and on what the manifest says it reads
or runs besides (`reads`: the justfile, records/, a package run in a subprocess). A page
depends on the examples it loads plus the `book` package that runs its cells. The book
re-executes a page exactly when one of those files, or the installed torch, changes;
tests/test_deps.py proves that the list is complete by watching every file an example opens.
"""

import ast
import hashlib
from functools import cache
from importlib.metadata import version
from pathlib import Path

from . import cases

REPO = cases.REPO
PACKAGES = ("minigpt", "tapegrad", "drift", "book")  # the repository's own importable packages


def package_files(package):
    return tuple(sorted((REPO / package).rglob("*.py")))


def imported_packages(path):
    """The repository packages that a Python file imports by name."""
    return _imported_packages(str(path), Path(path).stat().st_mtime_ns)


@cache  # one parse per file and version of it: Sphinx asks for each page, the tests for each case
def _imported_packages(path, mtime_ns):
    found = set()
    for node in ast.walk(ast.parse(Path(path).read_text("utf-8"))):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
        found.update(n.split(".")[0] for n in names if n.split(".")[0] in PACKAGES)
    return found


@cache
def package_closure(package):
    """package and every repository package it imports, transitively."""
    seen, todo = set(), [package]
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            todo.extend(p for f in package_files(current) for p in imported_packages(f))
    return frozenset(seen)


def files_of(packages):
    return {f for p in packages for f in package_files(p)}


SUMMARY = "@summary"  # a `reads` entry: the outcomes of the safe-case summary's examples


def _read_paths(entry):
    """A manifest `reads` entry: a file, a folder or a package (relative to the repository), or
    @summary for what the summary's cases depend on (their outcomes are read)."""
    if entry == SUMMARY:
        return {p for case in cases.summary_cases() for p in example_dependencies(case.name)}
    path = REPO / entry
    return set(path.rglob("*")) if path.is_dir() else {path}


def example_dependencies(name):
    """Every file examples/<name>.py depends on (absolute paths)."""
    case = cases.manifest()[name]
    packages = set(package_closure("book"))  # its publisher (book.publish) runs after it
    for package in imported_packages(case.path):
        packages |= package_closure(package)
    paths = {case.path, cases.MANIFEST} | files_of(packages)
    for entry in case.reads:
        paths |= _read_paths(entry)
    return {p for p in paths if p.is_file() and "__pycache__" not in p.parts}


def page_dependencies(example_names):
    """What a page that loads these examples depends on: them, and the kernel's `book` package."""
    paths = files_of(package_closure("book"))
    for name in example_names:
        paths |= example_dependencies(name)
    return paths


def fingerprint(paths, torch_version=None, repo=REPO):
    """A short hash of these files' paths (relative to repo: the same in any clone) and contents,
    and of the installed torch release."""
    digest = hashlib.sha256(f"torch {torch_version or version('torch')}".encode())
    for path in sorted(paths):
        digest.update(Path(path).relative_to(repo).as_posix().encode() + b"\0" + Path(path).read_bytes())
    return digest.hexdigest()[:16]
