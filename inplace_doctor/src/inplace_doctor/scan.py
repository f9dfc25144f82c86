"""The static scanner: candidate in-place writes in Python source, found with ``ast``."""

import ast
import inspect
import os
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .location import at


@dataclass(frozen=True)
class Candidate:
    path: str
    line: int
    kind: str
    code: str

    def __str__(self) -> str:
        return f"{at(self.path, self.line)}: {self.kind}: {self.code}"


Source = str | os.PathLike[str] | types.ModuleType
Sources = Source | list[Source] | tuple[Source, ...] | set[Source]


def _is_inplace_name(name: str) -> bool:
    return len(name) > 1 and name.endswith("_") and not name.endswith("__")  # add_, not __init__


def _is_data(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "data"


class _Scanner(ast.NodeVisitor):
    def __init__(self, path: str, lines: list[str]):
        self.path, self.lines = path, lines
        self.found: list[Candidate] = []

    def add(self, node: ast.expr | ast.stmt, kind: str) -> None:
        self.found.append(Candidate(self.path, node.lineno, kind, self.lines[node.lineno - 1].strip()))

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if _is_inplace_name(name):
            through_data = isinstance(func, ast.Attribute) and _is_data(func.value)
            self.add(node, f"write through .data ({name})" if through_data else f"in-place call {name}")
        for keyword in node.keywords:
            if keyword.arg == "inplace" and not (
                isinstance(keyword.value, ast.Constant) and keyword.value.value is False
            ):
                self.add(node, "inplace= argument")
            elif keyword.arg == "out":
                self.add(node, "out= argument")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.target(node.target, augmented=True)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self.target(target, augmented=False)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.target(node.target, augmented=False)
        self.generic_visit(node)

    def target(self, target: ast.expr, augmented: bool) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.target(element, augmented)
        elif _is_data(target) or (isinstance(target, ast.Subscript) and _is_data(target.value)):
            self.add(target, "write through .data")
        elif isinstance(target, ast.Subscript):
            key = target.slice
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):  # d["key"] = ...
                self.add(target, "index assignment")
        elif augmented:
            self.add(target, "augmented assignment")


def _source_files(paths_or_module: Sources) -> Iterator[Path]:
    items: list[Source] = (
        list(paths_or_module) if isinstance(paths_or_module, (list, tuple, set)) else [paths_or_module]
    )
    for item in items:
        if isinstance(item, types.ModuleType):
            if (source := inspect.getsourcefile(item)) is None:
                raise FileNotFoundError(f"no source file for module {item.__name__}")
            yield Path(source)
        elif Path(item).is_dir():
            yield from sorted(Path(item).rglob("*.py"))
        elif Path(item).is_file():
            yield Path(item)
        else:
            raise FileNotFoundError(f"no such file or directory: {item}")


def find_inplace_calls(paths_or_module: Sources) -> list[Candidate]:
    """Candidate in-place writes in Python source (files, directories or modules), by line.

    Lists calls of ``_``-suffixed methods and functions, augmented assignments, writes through
    ``.data``, ``inplace=`` and ``out=`` arguments and index assignments. It reads source only,
    so it cannot know types or whether a backward node saved the overwritten tensor: it lists
    safe and harmful writes alike (use ``diagnose`` to tell them apart).
    """
    found: list[Candidate] = []
    for path in _source_files(paths_or_module):
        source = path.read_text(encoding="utf-8")
        scanner = _Scanner(str(path), source.splitlines())
        scanner.visit(ast.parse(source, filename=str(path)))
        found.extend(scanner.found)
    return sorted(set(found), key=lambda c: (c.path, c.line, c.kind))
