"""What an example, and so a page, depends on, and its fingerprint: its file, its manifest entry, the
repository modules it imports (transitively), what its entry `reads` (a file, a folder, "@with:KEY"),
and for a page what its kernel runs. tests/test_deps.py proves the lists complete."""

import ast
from collections.abc import Iterable
from functools import cache
from importlib.metadata import version
from importlib.util import resolve_name
from pathlib import Path

from . import cases, comments, config, store


@cache
def module_file(name: str) -> Path | None:
    """This repository's file of the module `a.b.c` (a/b/c.py or a/b/c/__init__.py), or None."""
    package, *inner = name.split(".")
    if package not in config.PACKAGE_DIRS:
        return None
    base = config.PACKAGE_DIRS[package].joinpath(*inner)
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


@cache
def _imports(path: Path, mtime_ns: int) -> frozenset[str]:
    """The module names a file imports anywhere in it (functions included), relative ones resolved."""
    roots = [folder.parent for folder in config.PACKAGE_DIRS.values() if path.is_relative_to(folder)]
    package = ".".join(path.relative_to(roots[0] if roots else config.REPO).parts[:-1])  # the file's package
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = resolve_name("." * node.level + (node.module or ""), package) if node.level else node.module or ""
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)  # a submodule, or a name
    return frozenset(found)


def closure(paths: set[Path]) -> set[Path]:
    """These files and every repository module they import, transitively (packages' __init__.py too)."""
    seen: set[Path] = set()
    todo = [Path(p) for p in paths]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        if not path.is_relative_to(config.REPO):  # an engine installed apart: its file alone
            continue
        for name in _imports(path, path.stat().st_mtime_ns):
            parts = name.split(".")
            todo.extend(f for i in range(1, len(parts) + 1) if (f := module_file(".".join(parts[:i]))))
    # any engine module imports execbook.config, which reads pyproject.toml, wherever the engine is installed
    if any(p.is_relative_to(KERNEL.parent) for p in seen):
        seen |= {config.REPO / source for source in config.SOURCES if (config.REPO / source).is_file()}
    return seen


def _read_paths(entry: str) -> set[Path]:
    if entry.startswith(cases.WITH):
        return {p for case in cases.cases_with(entry.removeprefix(cases.WITH)) for p in example_dependencies(case.name)}
    path = config.REPO / entry
    if path.is_dir():  # what git tracks there, not an install's copies (store.project_files)
        return {p for p in store.project_files(config.REPO) if p.is_relative_to(path)}
    return {path}


@cache  # one build, one answer: the files do not change while a build reads them
def example_dependencies(name: str) -> frozenset[Path]:
    """Every file examples/<name>.py depends on (absolute paths); its manifest entry aside."""
    case = cases.manifest()[name]
    paths = closure({case.path}).union(*(_read_paths(entry) for entry in case.reads))
    return frozenset(p for p in paths if p.is_file())


KERNEL = Path(__file__).resolve().with_name("kernel.py")  # this engine's, wherever it is installed


@cache
def kernel_dependencies() -> frozenset[Path]:
    """What every page's kernel runs around its cells: execbook.kernel, the book's hooks, what they import."""
    hooks = {module_file(target.partition(":")[0]) for target in config.HOOKS.values()}
    return frozenset(closure({KERNEL, *filter(None, hooks)}))


def fingerprint(paths: Iterable[Path], *extra: str) -> str:
    """The fingerprint of these files, of extra and of the releases [tool.book] `fingerprinted` names."""
    releases = (f"{d} {version(d)}" for d in config.FINGERPRINTED)
    return store.fingerprint(paths, config.REPO, *releases, *extra, read=comments.fingerprinted)  # comments run nothing


def example_entries(name: str) -> list[str]:
    """The manifest entries examples/<name>.py depends on: its own, and those its `reads` names."""
    reads = cases.manifest()[name].reads
    named = [Path(entry).stem for entry in reads if Path(entry).parent.as_posix() == "examples"]
    keyed = [c.name for e in reads if e.startswith(cases.WITH) for c in cases.cases_with(e.removeprefix(cases.WITH))]
    return list(dict.fromkeys([name, *keyed, *(n for n in named if n in cases.manifest())]))


def page_dependencies(names: list[str]) -> set[Path]:
    """The files a page that loads these examples depends on (its kernel's and theirs)."""
    return set(kernel_dependencies()).union(*(example_dependencies(name) for name in names))


def page_fingerprint(names: list[str]) -> str:
    """Changes whenever anything the page depends on does: a file, or one of its examples' entries."""
    entries = dict.fromkeys(e for name in names for e in example_entries(name))
    return fingerprint(page_dependencies(names), *(cases.entry_text(e) for e in entries))


def outcome_key(name: str) -> str:
    """The store key of one case's outcome: it changes whenever anything the case depends on does."""
    entries = (cases.entry_text(e) for e in example_entries(name))
    return f"{name}-{fingerprint(example_dependencies(name), *entries)}"


def outcome(name: str) -> cases.Outcome:
    """The case's outcome in this build: the one its page's guard saved, else run now."""
    found: cases.Outcome = store.memoized("case", outcome_key(name), lambda: cases.execute(name).outcome)
    return found
