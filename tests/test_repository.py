"""What is committed: no large binaries but the listed ones, a LICENSE matching pyproject.toml, and
no comment that points at a file or module of this repository that is not there."""

import ast
import io
import re
import subprocess
import tokenize
import tomllib
from pathlib import Path

import pytest
import sizes

from execbook import config

REPO = Path(__file__).resolve().parent.parent
LIMIT = 50 * 1024
# Binary files over LIMIT that must be committed (path: why). The figures are drawn at build time,
# so none is committed today.
ALLOWED_BINARIES: dict[str, str] = {}

TOP = (
    "execbook",
    "phase25",
    "docs",
    "tests",
    "minigpt",
    "inplace_doctor",
    "tapegrad",
    "examples",
    "bench",
    "gpu",
    "records",
    ".ci",
    ".github",
)
PACKAGES = ("execbook", "phase25", "minigpt", "inplace_doctor", "tapegrad")
PATH = re.compile(rf"(?<![\w/.-])((?:{'|'.join(re.escape(t) for t in TOP)})/[\w./-]*\w)")
MODULE = re.compile(rf"(?<![\w/.-])((?:{'|'.join(PACKAGES)})(?:\.[a-z_]\w*)+)")
# a path written as a pattern (examples/theory02_*, records/torch-<release>.json, examples/EXAMPLE.py)
PATTERN = re.compile(r"[*<{]|[-_][<*{]?$|/[A-Z]+(?:\.|$)|_build")
SUFFIXES = {"py", "js", "css", "md", "toml", "json", "html", "txt", "yml", "po"}  # book.js: a file, not a module
COMMENTED = {
    ".css": r"/\*.*?\*/",
    ".js": r"/\*.*?\*/|//[^\n]*",
    ".po": r"#[^\n]*",
    ".toml": r"#[^\n]*",
    ".yml": r"#[^\n]*",
    ".yaml": r"#[^\n]*",
    ".html": r"<!--.*?-->|//[^\n]*|/\*.*?\*/",
    "": r"#[^\n]*",
}


def committed() -> list[str]:
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout (a scratch copy of the repository)")
    done = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True, check=True)
    return [name for name in done.stdout.split("\0") if name and (REPO / name).is_file()]


def is_binary(path: Path) -> bool:
    head = path.read_bytes()[:8000]
    if b"\0" in head:  # git's own test
        return True
    try:
        path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def test_no_large_binary_is_committed_but_the_listed_ones():
    large = [
        (name, (REPO / name).stat().st_size)
        for name in committed()
        if (REPO / name).stat().st_size > LIMIT and is_binary(REPO / name) and name not in ALLOWED_BINARIES
    ]
    assert not large, (
        f"binary files over {LIMIT // 1024} KB committed: {large}; remove them (git rm), or list "
        "one that must be committed in ALLOWED_BINARIES with why"
    )


def test_the_allowed_binaries_are_there():
    files = set(committed())
    assert all(name in files for name in ALLOWED_BINARIES), sorted(set(ALLOWED_BINARIES) - files)


def test_the_size_check_sees_a_binary(tmp_path):
    (tmp_path / "b.whl").write_bytes(b"PK\x03\x04\0" + bytes(range(256)) * 300)
    (tmp_path / "t.json").write_text("é" * 40000, encoding="utf-8")
    assert is_binary(tmp_path / "b.whl") and not is_binary(tmp_path / "t.json")


def test_the_license_is_the_one_pyproject_declares():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["license"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert declared == "MIT" and text.startswith("MIT License\n") and "the minigpt-course authors" in text


def comments(path: Path) -> list[tuple[int, str]]:
    """(line, text) of each comment and docstring of a committed text file."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        found = [
            (t.start[0], t.string)
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.COMMENT
        ]
        for node in ast.walk(ast.parse(text)):
            if (
                isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and node.body
                and isinstance(node.body[0], ast.Expr)
                and isinstance(node.body[0].value, ast.Constant)
                and isinstance(node.body[0].value.value, str)
            ):
                found.append((node.body[0].lineno, node.body[0].value.value))
        return found
    pattern = COMMENTED.get(path.suffix) if path.suffix in COMMENTED or path.name in ("run", "justfile") else None
    if pattern is None:
        return []
    return [(text.count("\n", 0, m.start()) + 1, m.group()) for m in re.finditer(pattern, text, re.DOTALL)]


def missing_references(text: str) -> list[str]:
    missing = []
    for match in PATH.finditer(text):
        path, after = match.group(1), text[match.end() : match.end() + 1]
        if not PATTERN.search(path + after) and not (REPO / path).exists():
            missing.append(path)
    for match in MODULE.finditer(text):
        parts = match.group(1).split(".")
        for k in range(len(parts), 0, -1):  # the longest module, then one attribute of it at most
            base = config.PACKAGE_DIRS[parts[0]].joinpath(*parts[1:k])
            source = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
            if source.is_file():
                rest = parts[k:]
                if (
                    rest
                    and rest[0] not in SUFFIXES
                    and not re.search(rf"\b{re.escape(rest[0])}\b", source.read_text(encoding="utf-8"))
                ):
                    missing.append(match.group(1))
                break
        else:
            missing.append(match.group(1))
    return missing


def test_no_comment_points_at_a_file_or_module_that_is_not_there():
    stale = [
        f"{name}:{line}: {ref}"
        for name in committed()
        if (REPO / name).suffix in (".py", *COMMENTED) or Path(name).name in ("run", "justfile")
        for line, text in comments(REPO / name)
        for ref in missing_references(text)
    ]
    assert not stale, "comments naming what is not in the repository (fix or remove them):\n" + "\n".join(stale)


def test_the_reference_check_sees_a_stale_one():
    assert missing_references("see docs/_ext/downloads.py and execbook.sphinxext.reproducible") == [
        "docs/_ext/downloads.py",
        "execbook.sphinxext.reproducible",
    ]
    assert (
        missing_references(
            "see execbook/src/execbook/sphinxext/downloads.py, execbook.config.REPO, "
            " records/torch-<r>.json, examples/theory02_*"
        )
        == []
    )


# What PyTorch keeps private (a node's saved slots, a tensor's version counter, an AccumulateGrad's
# variable, the autograd engine's sequence numbers) is read in one module, the diagnoser's
# torch_private, whose probes say when a release changes it (issue 31: one graph walker). Every
# package: no such attribute read. The diagnoser's other modules, whose one file to change when
# torch moves is torch_private (its docstring), do not even name a private API (the diagnoser's own
# test, which moves with it). A package's own tests/ are pytest's, not the package.
PRIVATE_TORCH = re.compile(r"^_(saved_|raw_saved_|version$|sequence_nr$)|^variable$")
TORCH_PRIVATE = REPO / "inplace_doctor" / "src" / "inplace_doctor" / "torch_private.py"


def private_torch_uses(path, root=REPO):
    """The attribute reads (`x._saved_input`, `getattr(x, "_raw_saved_...")`) of path that name
    PyTorch's private attributes. (The diagnoser's own tests also hold it to naming no private API
    outside torch_private: inplace_doctor/tests/test_diagnose.py, which moves with the package.)"""
    text = path.read_text(encoding="utf-8")
    found = set()
    for node in ast.walk(ast.parse(text)):
        name = None
        if isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("getattr", "hasattr") and node.args[1:]:
            name = getattr(node.args[1], "value", None)
        if isinstance(name, str) and PRIVATE_TORCH.match(name):
            found.add((node.lineno, name))
    return [f"{path.relative_to(root)}:{line}: {name}" for line, name in sorted(found)]


def test_only_the_diagnoser_s_torch_private_uses_torch_s_private_apis():
    modules = [
        path
        for package in PACKAGES
        for path in sizes.python_files(REPO / package)  # what git tracks: not an install's build/ copies
        if path != TORCH_PRIVATE and "tests" not in path.relative_to(REPO).parts
    ]
    assert {"inplace_doctor/src/inplace_doctor/scan.py", "minigpt/graph.py"} <= {
        p.relative_to(REPO).as_posix() for p in modules
    }
    found = [use for path in modules for use in private_torch_uses(path)]
    assert found == []


def test_the_private_api_check_sees_one(tmp_path):
    path = tmp_path / "x.py"
    path.write_text(
        'v = t._version\nif hasattr(n, "variable"):\n    n._saved_self\nn.next_functions\n', encoding="utf-8"
    )
    reads = ["x.py:1: _version", "x.py:2: variable", "x.py:3: _saved_self"]
    assert private_torch_uses(path, root=tmp_path) == reads
