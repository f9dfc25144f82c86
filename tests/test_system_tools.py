"""The programs the tests run are the ones .ci/system-tools.toml lists (what .ci/run installs when
missing): the test suite's subprocess calls and shutil.which lookups, read with ast, each first
argument followed through names, fixtures, lambdas and small helper functions to its program."""

import ast
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / ".ci"))
import system_tools  # noqa: E402 - .ci/system_tools.py, what .ci/run asks

RUNS = {("subprocess", name) for name in ("run", "check_output", "check_call", "call", "Popen")}
WHICH = ("shutil", "which")
PYTHON = "python"  # sys.executable: the interpreter running the tests, not a system tool
UNKNOWN = "?"
SYSTEM_PATH = re.compile(r"^/(?:usr/)?s?bin/[\w.+-]+$")  # a program named by its path (Chromium's)


@dataclass
class Frame:
    """Where a name is looked up: a function (or lambda) of a module, its known arguments, its caller."""

    module: "Module"
    node: ast.AST | None = None  # None: the module's top level
    bindings: dict = field(default_factory=dict)  # parameter -> (expression, the frame it is read in)
    parent: "Frame | None" = None


class Module:
    def __init__(self, source: str):
        self.tree = ast.parse(source)
        self.parents = {child: node for node in ast.walk(self.tree) for child in ast.iter_child_nodes(node)}
        self.functions = {n.name: n for n in ast.walk(self.tree) if isinstance(n, ast.FunctionDef)}
        self.assigned = {}  # module-level name -> its values
        for node in self.tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
        self.imported = {}  # name -> (module, name), from `from x import y`
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = (node.module, alias.name)


class Programs:
    """program(node, frame) and argv(node, frame): the set of programs an expression can name."""

    def __init__(self, modules: dict):
        self.modules = modules

    def argv(self, node, frame, depth=0):
        if depth > 20:
            return {UNKNOWN}
        if isinstance(node, (ast.List, ast.Tuple)):
            if not node.elts:
                return {UNKNOWN}
            first = node.elts[0]
            return (
                self.argv(first.value, frame, depth + 1)
                if isinstance(first, ast.Starred)
                else self.program(first, frame, depth + 1)
            )
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.argv(node.left, frame, depth + 1)
        return self._follow(node, frame, depth, self.argv)

    def program(self, node, frame, depth=0):
        if depth > 20:
            return {UNKNOWN}
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {Path(node.value).name}
        if isinstance(node, ast.Attribute) and ast.unparse(node) == "sys.executable":
            return {PYTHON}
        if isinstance(node, ast.Call) and self.called(node, frame) == WHICH:
            return self.program(node.args[0], frame, depth + 1) if node.args else {UNKNOWN}
        return self._follow(node, frame, depth, self.program)

    def _follow(self, node, frame, depth, then):
        """Names, conditionals and calls, followed to the values they can take."""
        if isinstance(node, ast.Constant) and node.value is None:
            return set()  # no command at all (e.g. `offline(...)` where the namespace is refused)
        if isinstance(node, ast.IfExp):
            return then(node.body, frame, depth + 1) | then(node.orelse, frame, depth + 1)
        if isinstance(node, ast.BoolOp):
            return set().union(*(then(v, frame, depth + 1) for v in node.values))
        if isinstance(node, ast.Name):
            values = self.values(node.id, frame)
            return set().union(*(then(v, f, depth + 1) for v, f in values)) if values else {UNKNOWN}
        if isinstance(node, ast.Call):
            return set().union(*(then(v, f, depth + 1) for v, f in self.returns(node, frame))) or {UNKNOWN}
        return {UNKNOWN}

    def called(self, call, frame):
        """("subprocess", "run"), ("shutil", "which"), ...: what a call calls, where it can tell."""
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            return func.value.id, func.attr
        if isinstance(func, ast.Name) and func.id in frame.module.imported:
            return frame.module.imported[func.id]
        return None

    def values(self, name, frame):
        """Every (expression, frame) the name can hold in frame: bound arguments, assignments in the
        enclosing functions, a fixture of that name, call sites of a helper, the module, conftest."""
        module = frame.module
        while frame is not None:
            if name in frame.bindings:
                return [frame.bindings[name]]
            node = frame.node
            if node is not None:
                found = [
                    (n.value, frame)
                    for n in ast.walk(node)
                    if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
                ]
                if found:
                    return found
                if name in [a.arg for a in node.args.args]:
                    return self.parameter(name, node, frame)
            frame = frame.parent
        if name in module.assigned:
            return [(v, Frame(module)) for v in module.assigned[name]]
        if name in module.imported:
            source, original = module.imported[name]
            other = self.modules.get(source)
            if other is not None and original in other.assigned:
                return [(v, Frame(other)) for v in other.assigned[original]]
        return []

    def parameter(self, name, function, frame):
        fixture = self.fixture(name, frame.module)
        if fixture is not None:
            module, node = fixture
            return self.function_results(node, Frame(module, node))
        if isinstance(function, ast.FunctionDef):  # a helper: the arguments its callers pass
            index = [a.arg for a in function.args.args].index(name)
            return [
                (call.args[index], self.frame_at(frame.module, call))
                for call in ast.walk(frame.module.tree)
                if isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == function.name
                and len(call.args) > index
            ]
        return []

    def fixture(self, name, module):
        for candidate in (module, self.modules.get("conftest")):
            node = candidate and candidate.functions.get(name)
            if node is not None and any("fixture" in ast.unparse(d) for d in node.decorator_list):
                return candidate, node
        return None

    @staticmethod
    def frame_at(module, target):
        """The frame of the code around target: its enclosing functions, outermost first."""
        enclosing, node = [], module.parents.get(target)
        while node is not None:
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                enclosing.append(node)
            node = module.parents.get(node)
        frame = Frame(module)
        for function in reversed(enclosing):
            frame = Frame(module, function, parent=frame)
        return frame

    @staticmethod
    def function_results(node, frame):
        if isinstance(node, ast.Lambda):
            return [(node.body, frame)]
        return [
            (n.value, frame) for n in ast.walk(node) if isinstance(n, (ast.Return, ast.Yield)) and n.value is not None
        ]

    def returns(self, call, frame):
        """What a call to a function of the test suite (or a fixture's lambda) returns."""
        if not isinstance(call.func, ast.Name):
            return []
        # a local name or a fixture that holds a lambda, else a function of the module (or imported)
        targets = [(value, where) for value, where in self.values(call.func.id, frame) if isinstance(value, ast.Lambda)]
        function = None if targets else frame.module.functions.get(call.func.id)
        if not targets and function is None and call.func.id in frame.module.imported:
            source, name = frame.module.imported[call.func.id]
            module = self.modules.get(source)
            function = module and module.functions.get(name)
            frame = Frame(module, None) if function is not None else frame
        if function is not None:
            targets.append((function, frame))
        results = []
        for function, where in targets:
            params = [a.arg for a in function.args.args]
            bindings = {p: (a, frame) for p, a in zip(params, call.args, strict=False)}
            inner = Frame(where.module, function, bindings, where)
            results += self.function_results(function, inner)
        return results


def scan(sources: dict[str, str]) -> dict[str, list[str]]:
    """{program: [where, ...]} for every subprocess call and shutil.which lookup in the sources
    ({module name: source}); a first argument it cannot follow is the program UNKNOWN."""
    modules: dict = {}
    for name, source in sources.items():
        modules[name] = Module(source)
    programs = Programs(modules)
    found: dict[str, list[str]] = {}
    for name, module in modules.items():
        for call in ast.walk(module.tree):
            if not isinstance(call, ast.Call) or not call.args:
                if isinstance(call, ast.Constant) and isinstance(call.value, str) and SYSTEM_PATH.match(call.value):
                    found.setdefault(Path(call.value).name, []).append(f"{name}:{call.lineno}")
                continue
            what = programs.called(call, Frame(module))
            if what not in RUNS and what != WHICH:
                continue
            frame = programs.frame_at(module, call)
            names = programs.argv(call.args[0], frame) if what in RUNS else programs.program(call.args[0], frame)
            for program in names - {PYTHON}:
                found.setdefault(program, []).append(f"{name}:{call.lineno}")
    return found


# The folders of the tests that run programs; each one's modules import one another by name. tests/
# first: its modules import its conftest.py (execbook/tests' is named by its path).
SUITE_FOLDERS = (REPO / "tests", REPO / "execbook" / "tests")


def suite_sources() -> dict[str, str]:
    sources = {}
    for folder in SUITE_FOLDERS:
        for p in sorted(folder.rglob("*.py")):
            name = p.stem if p.parent == folder and p.stem not in sources else p.relative_to(REPO).as_posix()
            sources[name] = p.read_text(encoding="utf-8")
    return sources


def listed(tools: dict) -> set[str]:
    return {Path(t["command"]).name for t in tools["apt"].values() if "command" in t} | set(tools["pip"])


def missing_from_list(found: dict[str, list[str]], tools: dict) -> list[str]:
    known = listed(tools)
    return [
        f"{where[0]} runs {program!r}, which .ci/system-tools.toml does not list: add it there "
        "(with its Debian package), or to the test extra and its [pip] table"
        if program != UNKNOWN
        else f"{', '.join(where)}: cannot tell which program this runs; make its first argument a literal "
        "(or a name, fixture or helper that holds one)"
        for program, where in sorted(found.items())
        if program not in known
    ]


def test_every_program_the_tests_run_is_listed():
    found = scan(suite_sources())
    assert "npm" in found and "unshare" in found  # the scan sees the suite's calls at all
    assert not missing_from_list(found, system_tools.load()), "\n".join(missing_from_list(found, system_tools.load()))


SYNTHETIC_CONFTEST = """
import subprocess, sys
import pytest
WRAP = ["wrapper-tool", "--", "sh", "-c", "exec $@"]

@pytest.fixture
def wrapped():
    return lambda command: [*WRAP, *command] if ok else None
"""
SYNTHETIC_TEST = """
import shutil, subprocess, sys
from subprocess import check_output
from conftest import WRAP

def helper(folder):
    return ["tar-like", "-C", folder]

def tool(name):
    found = shutil.which(name)
    return found

def test_a(wrapped, tmp_path):
    subprocess.run(["literal-tool", "x"])
    subprocess.run([sys.executable, "-m", "x"])
    subprocess.run(helper(tmp_path))
    probe = wrapped([sys.executable, "-c", "1"])
    subprocess.run(probe)
    check_output([tool("linted"), "x"])
    command = [sys.executable] if tmp_path else ["/usr/bin/other-tool"]
    subprocess.Popen(command or WRAP)
    subprocess.run(some_function_of_elsewhere())
"""


def test_the_scan_follows_literals_fixtures_helpers_and_names_and_admits_what_it_cannot_tell():
    found = scan({"conftest": textwrap.dedent(SYNTHETIC_CONFTEST), "test_x": textwrap.dedent(SYNTHETIC_TEST)})
    assert set(found) == {"literal-tool", "tar-like", "wrapper-tool", "linted", "other-tool", UNKNOWN}, found
    assert found[UNKNOWN] == ["test_x:22"]  # some_function_of_elsewhere()
    problems = missing_from_list(
        found, {"apt": {"t": {"command": "other-tool", "apt": "o"}}, "pip": {"linted": "linter"}}
    )
    assert (
        len(problems) == 4
        and any("'literal-tool', which .ci/system-tools.toml does not list" in p for p in problems)
        and any("cannot tell" in p for p in problems)
    ), problems


def test_the_ci_script_installs_the_missing_ones_from_debian(tmp_path):
    tools = tmp_path / "tools.toml"
    tools.write_text(
        '[apt.here]\ncommand = "sh"\napt = "dash"\n'
        '[apt.absent]\ncommand = "no-such-program-anywhere"\napt = "absent-package"\n'
        '[apt.also]\ncommand = "/no/such/path/tool"\napt = "absent-package"\n'
        '[apt.module]\nmodule = "no_such_module_anywhere"\napt = "python3-module"\n'
        '[apt.header]\nheader = "no-such-header.h"\napt = "python3-header"\n[pip]\n'
    )
    assert system_tools.missing(tools) == ["absent-package", "python3-module", "python3-header"]
    run = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 .ci/system_tools.py missing" in run and "apt-get install -y -qq $missing" in run


def test_the_ci_script_lists_what_is_missing_on_this_machine():
    done = subprocess.run(
        [sys.executable, str(REPO / ".ci" / "system_tools.py"), "missing"], capture_output=True, text=True, check=True
    )
    packages = {t["apt"] for t in system_tools.load()["apt"].values()}
    assert set(done.stdout.split()) <= packages


def test_readme_quick_start_is_what_ci_runs():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Quick start.*?```bash\n(.*?)```", readme, re.DOTALL)
    assert block, "README has no Quick start section with a bash block"
    # an `export` line sets the environment of the commands (the CPU wheels), it runs nothing
    lines = [line.split("#")[0].strip() for line in block[1].splitlines()]
    commands = [line for line in lines if line and not line.startswith("export ")]
    run = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert len(commands) == 2 and all(command in run for command in commands), (
        commands,
        "README's quick start is not what .ci/run runs",
    )
