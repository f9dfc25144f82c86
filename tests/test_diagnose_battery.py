"""minigpt.diagnose on bugs written the way people meet them (tests/diagnose_battery/).

Each case is a small script, run unmodified by the diagnoser's command. Its marks:

* ``# WRITE``: the line the diagnoser must name as the writer (several lines may carry it);
* ``# BUILT``: the line that built a module made with ``inplace=True`` (named as well);
* ``twin: <code>``: the out-of-place twin replaces that line's code with ``<code>``;
* ``Kind:`` in its docstring: the mechanism it exercises (raises, detached, counter-blind,
  hooks, ctx, unseen or harmless), that is, which label the diagnoser must give.

PyTorch decides the truth: each case runs without the diagnoser. It is harmful if its backward
raises PyTorch's in-place error, or if its gradients differ from its twin's; harmless otherwise.
The test then checks the case is what its Kind says, and that the diagnoser finds every harmful
case at its WRITE line with the right label, reports nothing for a harmless one, and leaves the
program's behaviour as it was (it raises where PyTorch raises, the gradients are the same).
"""

import ast
import os
import re
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

import pytest
import torch

from minigpt import diagnose as dg
from minigpt.diagnose.runner import Options, run_script
from minigpt.diagnose.session import is_inplace_error

BATTERY = Path(__file__).parent / "diagnose_battery"
CASES = sorted(p.stem for p in BATTERY.glob("*.py") if p.stem != "__init__")
LABELS = {"raises": dg.RAISES, "detached": dg.DETACHED, "counter-blind": dg.COUNTER_BLIND,
          "hooks": dg.HOOKS_SKIP_CHECK, "ctx": dg.CTX_UNCHECKED, "unseen": dg.UNSEEN_WRITE}
TWIN = re.compile(r"#.*\btwin: (.*)$")


@dataclass
class Case:
    name: str
    path: Path
    source: str
    kind: str
    write_lines: List[int]
    built_lines: List[int]

    @property
    def twin_source(self) -> str:
        lines = []
        for line in self.source.splitlines():
            twin = TWIN.search(line)
            if twin:
                indent = line[:len(line) - len(line.lstrip())]
                line = indent + twin.group(1).strip()
            lines.append(line)
        return "\n".join(lines) + "\n"


def load(name: str) -> Case:
    path = BATTERY / f"{name}.py"
    source = path.read_text(encoding="utf-8")
    kind = re.search(r"^Kind: (\S+)$", ast.get_docstring(ast.parse(source)) or "", re.M)
    assert kind, f"{name}: its docstring names no Kind"
    lines = source.splitlines()
    marked = lambda mark: [i for i, line in enumerate(lines, 1) if re.search(rf"#.*\b{mark}\b", line)]
    assert TWIN.search(source) or any(TWIN.search(line) for line in lines), f"{name} has no twin"
    return Case(name, path, source, kind.group(1), marked("WRITE"), marked("BUILT"))


@dataclass
class Run:
    error: Optional[BaseException]
    grads: Dict[str, Optional[torch.Tensor]]


def gradients(namespace: dict) -> Dict[str, Optional[torch.Tensor]]:
    """Every gradient a finished script holds: its modules' parameters and its leaf tensors."""
    grads = {}
    for name, value in namespace.items():
        if isinstance(value, torch.nn.Module):
            for pname, p in value.named_parameters():
                grads[f"{name}.{pname}"] = None if p.grad is None else p.grad.clone()
        elif isinstance(value, torch.Tensor) and value.is_leaf and value.requires_grad:
            grads[name] = None if value.grad is None else value.grad.clone()
    return grads


def run_plain(source: str, path: Path) -> Run:
    """The script as `python path` runs it, in this process, without the diagnoser."""
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=str(path), __builtins__=__builtins__)
    saved_main, saved_argv = sys.modules["__main__"], sys.argv
    sys.modules["__main__"], sys.argv = module, [str(path)]
    try:
        exec(compile(source, str(path), "exec"), module.__dict__)
        error = None
    except RuntimeError as exc:
        error = exc
    finally:
        sys.modules["__main__"], sys.argv = saved_main, saved_argv
    return Run(error, gradients(module.__dict__))


def same_gradients(a: Dict[str, Optional[torch.Tensor]], b: Dict[str, Optional[torch.Tensor]]) -> bool:
    if a.keys() != b.keys():
        return False
    for name in a:
        x, y = a[name], b[name]
        if (x is None) != (y is None) or (x is not None and not torch.allclose(x, y, rtol=1e-5, atol=1e-7)):
            return False
    return True


def truth(case: Case, tmp_path: Path) -> str:
    """What PyTorch does: "raises", "detached", "silent" (gradients differ from the twin's) or
    "harmless"."""
    plain = run_plain(case.source, case.path)
    if plain.error is not None:
        assert is_inplace_error(plain.error), f"{case.name} fails for another reason: {plain.error}"
        return "detached" if "detached in-place" in str(plain.error) else "raises"
    twin_path = tmp_path / case.path.name
    twin_path.write_text(case.twin_source, encoding="utf-8")
    twin = run_plain(case.twin_source, twin_path)
    assert twin.error is None, f"{case.name}'s twin raises: {twin.error}"
    return "harmless" if same_gradients(plain.grads, twin.grads) else "silent"


@pytest.fixture(scope="module")
def outcomes():
    """The diagnoser's command on each case, to the script's end (every backward)."""
    cache = {}

    def get(name):
        if name not in cache:
            case = load(name)
            cwd = os.getcwd()
            try:
                os.chdir(BATTERY)
                cache[name] = run_script(Options(str(case.path), [], steps=None))
            finally:
                os.chdir(cwd)
        return cache[name]

    return get


def test_the_battery_is_large_and_varied():
    kinds = [load(name).kind for name in CASES]
    assert len(CASES) >= 25
    assert kinds.count("harmless") >= 6
    assert set(kinds) == set(LABELS) | {"harmless"}


@pytest.mark.parametrize("name", CASES)
def test_case_is_what_its_kind_says(name, tmp_path):
    case = load(name)
    expected = {"raises": "raises", "detached": "detached", "harmless": "harmless"}.get(case.kind, "silent")
    assert truth(case, tmp_path) == expected
    assert (case.kind == "harmless") == (not case.write_lines), "harmful cases mark their writer line, safe ones none"


@pytest.mark.parametrize("name", CASES)
def test_diagnoser_on_case(name, tmp_path, outcomes):
    case = load(name)
    pytorch = truth(case, tmp_path)
    outcome = outcomes(name)
    report = outcome.report
    assert outcome.failure is None, outcome.failure
    if pytorch == "harmless":
        assert report.findings == [] and outcome.status == 0, str(report)
        return
    assert report.findings and outcome.status == 1, str(report)
    for finding in report.findings:  # every write it names is a marked writer line
        line = finding.through.line if finding.check == dg.UNSEEN_WRITE and finding.through else \
            finding.write.location.line if finding.write else None
        assert line in case.write_lines, f"{finding.describe()}\nnot at a WRITE line {case.write_lines}"
    labels = {f.check for f in report.findings}
    if pytorch in ("raises", "detached"):
        assert LABELS[pytorch] in labels, str(report)
        assert report.raised is not None, "under the diagnoser the backward must raise as well"
        assert report.passes[-1].raised_by is not None and report.passes[-1].raised_by.check in dg.findings.RAISING
    else:
        assert labels == {LABELS[case.kind]}, str(report)
        assert all(f.silent for f in report.findings)
        assert report.raised is None
    for built in case.built_lines:
        assert any(f.write and f.write.location.built and f.write.location.built.line == built
                   for f in report.findings), f"no finding names the line that built the module ({built})"


@pytest.mark.parametrize("name", [n for n in CASES if load(n).kind not in ("raises", "detached")])
def test_the_program_computes_the_same_gradients_under_the_diagnoser(name):
    """Harmless and silent cases run to their end under the diagnoser: same gradients as without."""
    case = load(name)
    plain = run_plain(case.source, case.path)
    module_grads = {}
    cwd = os.getcwd()
    try:
        os.chdir(BATTERY)
        outcome = run_script(Options(str(case.path), [], steps=None))
        module_grads = gradients(outcome.namespace)
    finally:
        os.chdir(cwd)
    assert outcome.failure is None
    assert same_gradients(plain.grads, module_grads) and plain.grads, name
