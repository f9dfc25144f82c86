"""`python tests/sizes.py`: the lines (`wc -l`) of each package's Python, of the rest ("total": the
code), and apart of the tests and of examples/ (the book's content: a new page never passes a target),
against pyproject.toml's [tool.phase25.sizes]. One over its target exits 1, and tests/test_sizes.py
fails (README: Sizes)."""

import sys
import tomllib
from pathlib import Path

from execbook import config, store

TESTS = "tests"
APART = (TESTS, "examples")  # counted, not in the total (config.EXAMPLES's name)


def targets() -> dict[str, int]:
    """part -> the most lines it may have: [tool.phase25.sizes] (a package's name, or "total")."""
    project = tomllib.loads((config.REPO / "pyproject.toml").read_text("utf-8"))
    return dict(project["tool"]["phase25"].get("sizes", {}))


def python_files(folder: Path) -> list[Path]:
    """The Python files git tracks (or would) in folder: not an install's copies (store.project_files)."""
    return sorted(p for p in store.project_files(config.REPO) if p.suffix == ".py" and p.is_relative_to(folder))


def lines(paths: list[Path]) -> int:
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in paths)


def sizes() -> dict[str, int]:
    """part -> lines: each package, then "other" (benchmarks, scripts), then "tests", then "examples"."""
    every = python_files(config.REPO)
    tests = [p for p in every if TESTS in p.relative_to(config.REPO).parts]  # tests/, and a package's own tests/
    # examples/, and a book's of its own (the engine's documentation's, execbook/docs/examples/)
    examples = [p for p in every if config.EXAMPLES.name in p.relative_to(config.REPO).parts and p not in tests]
    every = [p for p in every if p not in tests and p not in examples]
    found = {pkg: lines([p for p in every if p.is_relative_to(d)]) for pkg, d in config.PACKAGE_DIRS.items()}
    found["other"] = lines([p for p in every if not any(map(p.is_relative_to, config.PACKAGE_DIRS.values()))])
    return found | {TESTS: lines(tests), config.EXAMPLES.name: lines(examples)}


def rows(limits: dict[str, int] | None = None) -> list[tuple[str, int, int | None]]:
    """(part, lines, its target or None): each package, "other", "total" (the code), "tests", "examples"."""
    found, limits = sizes(), targets() if limits is None else limits
    apart = [(part, found.pop(part)) for part in APART]
    parts = [*found.items(), ("total", sum(found.values())), *apart]
    return [(part, count, limits.get(part)) for part, count in parts]


def over(limits: dict[str, int] | None = None) -> list[str]:
    """ "part: N lines, over its target of M" for each part over its [tool.phase25.sizes] target."""
    return [f"{part}: {n:,} lines, over its target of {t:,}" for part, n, t in rows(limits) if t is not None and n > t]


def main() -> int:
    print(f"{'part':<16} {'lines':>7}  target")
    for part, count, target in rows():
        mark = "" if target is None else f"<= {target:,}" + ("  OVER" if count > target else "")
        print(f"{part:<16} {count:>7,}  {mark}")
    print(f"({' and '.join(APART)} apart: not in the total)")
    return 1 if over() else 0


if __name__ == "__main__":
    sys.exit(main())
