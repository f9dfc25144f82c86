"""`python -m execbook sizes`: the lines of Python of each package, the rest, and the tests apart.

Lines are physical lines of the repository's tracked-or-not .py files (what `wc -l` counts),
outside the build folder, the virtual environments and tests/. The targets are [tool.book.sizes]
(a package's name, or "total": all non-test Python); one over its target is marked, and the
command exits 1 (README: Sizes).
"""

import sys
from pathlib import Path

from . import config

SKIPPED = {".nox", ".git", "__pycache__", config.BUILD.name, "node_modules"}
TESTS = "tests"


def python_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*.py") if not SKIPPED & set(p.relative_to(config.REPO).parts)]


def lines(paths: list[Path]) -> int:
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in paths)


def sizes() -> dict[str, int]:
    """part -> lines: each package, then "other" (examples, benchmarks, scripts), then "tests"."""
    every = python_files(config.REPO)
    found = {
        package: lines([p for p in every if p.relative_to(config.REPO).parts[0] == package])
        for package in config.PACKAGES
    }
    found["other"] = lines([p for p in every if p.relative_to(config.REPO).parts[0] not in (*config.PACKAGES, TESTS)])
    found[TESTS] = lines([p for p in every if p.relative_to(config.REPO).parts[0] == TESTS])
    return found


def main(arguments: list[str]) -> int:
    if arguments:
        print("usage: python -m execbook sizes", file=sys.stderr)
        return 2
    found, targets = sizes(), config.SIZE_TARGETS
    total = sum(n for part, n in found.items() if part != TESTS)
    over = []
    print(f"{'part':<16} {'lines':>7}  target")
    for part, count in [*((p, n) for p, n in found.items() if p != TESTS), ("total", total), (TESTS, found[TESTS])]:
        target = targets.get(part)
        mark = "" if target is None else f"<= {target:,}" + ("  OVER" if count > target else "")
        if target is not None and count > target:
            over.append(part)
        print(f"{part:<16} {count:>7,}  {mark}")
    print("(tests apart: not in the total)")
    return 1 if over else 0
