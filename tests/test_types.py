"""The public functions of every package (minigpt, inplace_doctor, execbook, phase25, tapegrad) carry type
annotations: every parameter and the return value. (mypy checks them: nox -s tests runs it before pytest.)"""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("minigpt", "inplace_doctor", "execbook", "phase25", "tapegrad")
SPECIAL = {"__init__", "__call__", "__enter__", "__exit__"}  # dunder methods whose types matter


def public_functions(tree):
    """(qualified name, node) of every public function and method (of a public class) in a module."""

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef) and not child.name.startswith("_"):
                yield from walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not child.name.startswith("_") or child.name in SPECIAL:
                    yield f"{prefix}{child.name}", child, bool(prefix)

    yield from walk(tree, "")


def unannotated(function, method):
    arguments = function.args
    named = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
    if method and named and named[0].arg in ("self", "cls"):
        named = named[1:]
    missing = [a.arg for a in [*named, arguments.vararg, arguments.kwarg] if a is not None and a.annotation is None]
    if function.returns is None and function.name != "__init__":
        missing.append("return")
    return missing


MODULES = sorted(  # a package's own tests/ (inplace_doctor's) are pytest's, not its API
    p for package in PACKAGES for p in (REPO / package).rglob("*.py") if not {"__pycache__", "tests"} & set(p.parts)
)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_public_functions_are_annotated(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    missing = {name: unannotated(node, method) for name, node, method in public_functions(tree)}
    missing = {name: what for name, what in missing.items() if what}
    assert not missing, f"{path.relative_to(REPO)}: annotate {missing}"
