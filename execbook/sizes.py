"""`python -m execbook sizes`: the lines (`wc -l`) of each package's Python, of the rest, and of the
tests apart, against [tool.book.sizes] (a package's name, or "total": all non-test Python). One over
its target exits 1, and tests/test_sizes.py fails (README: Sizes).
"""

import sys
from pathlib import Path

from . import config, store

TESTS = "tests"


def python_files(folder: Path) -> list[Path]:
    """The Python files git tracks (or would) in folder: not an install's copies (store.project_files)."""
    return sorted(p for p in store.project_files(config.REPO) if p.suffix == ".py" and p.is_relative_to(folder))


def lines(paths: list[Path]) -> int:
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in paths)


def sizes() -> dict[str, int]:
    """part -> lines: each package, then "other" (examples, benchmarks, scripts), then "tests"."""
    every = python_files(config.REPO)
    tests = [p for p in every if TESTS in p.relative_to(config.REPO).parts]  # tests/, and a package's own tests/
    every = [p for p in every if p not in tests]
    found = {pkg: lines([p for p in every if p.relative_to(config.REPO).parts[0] == pkg]) for pkg in config.PACKAGES}
    found["other"] = lines([p for p in every if p.relative_to(config.REPO).parts[0] not in config.PACKAGES])
    found[TESTS] = lines(tests)
    return found


def rows() -> list[tuple[str, int, int | None]]:
    """(part, lines, its target or None): each package, "other", "total" (all non-test Python), "tests"."""
    found = sizes()
    tests = found.pop(TESTS)
    parts = [*found.items(), ("total", sum(found.values())), (TESTS, tests)]
    return [(part, count, config.SIZE_TARGETS.get(part)) for part, count in parts]


def over() -> list[str]:
    """ "part: N lines, over its target of M" for each part over its [tool.book.sizes] target."""
    return [f"{part}: {n:,} lines, over its target of {t:,}" for part, n, t in rows() if t is not None and n > t]


def main(arguments: list[str]) -> int:
    if arguments:
        print("usage: python -m execbook sizes", file=sys.stderr)
        return 2
    print(f"{'part':<16} {'lines':>7}  target")
    for part, count, target in rows():
        mark = "" if target is None else f"<= {target:,}" + ("  OVER" if count > target else "")
        print(f"{part:<16} {count:>7,}  {mark}")
    print("(tests apart: not in the total)")
    return 1 if over() else 0
