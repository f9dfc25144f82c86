"""inplace_doctor: the runtime diagnosis over a battery of harmful and safe in-place writes,
the static scanner, the `python -m inplace_doctor` command on any script, watch()
and diagnose(fn), what PyTorch does with checkpoints, optimizer steps and in-place metadata ops
(the diagnoser must say the same), CUDA, the cost (digests, not copies), and the probes of the
private PyTorch APIs the diagnosis relies on (inplace_doctor/src/inplace_doctor/torch_private.py). The bugs as
people write them are in inplace_doctor/tests/diagnose_battery/ (test_diagnose_battery.py).

Expected lines are never written down: each battery model marks its lines with comments
(``# WRITE``: the in-place write; ``# SAVE``: where the overwritten tensor was saved), and the
tests look the marks up in the source.
Where the battery says what PyTorch's version check does, the test also runs a real backward.
"""

import contextlib
import functools
import inspect
import math
import re
import socket
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd.graph import saved_tensors_hooks

import inplace_doctor as dg
import inplace_doctor.findings
import inplace_doctor.recorder
import inplace_doctor.selfcheck  # noqa: F401 (it registers the last probe, diagnose-works)
from inplace_doctor import runner, torch_private

BATTERY = Path(__file__).parent / "diagnose_battery"  # bugs written as people write them (test_diagnose_battery.py)
D = 8
INPLACE_ERROR = "modified by an inplace operation"
SUMMARY = re.compile(r"^(\d+) findings?: (\d+) caught by PyTorch's version check at backward, (\d+) silent$")


def line_of(obj, mark):
    """The one source line of obj (a function or class) containing mark."""
    lines, start = inspect.getsourcelines(obj)
    hits = [start + i for i, text in enumerate(lines) if mark in text]
    assert len(hits) == 1, f"{mark!r} should occur once in {obj.__qualname__}, found at {hits}"
    return hits[0]


def same_file(a, b):
    return Path(a).resolve() == Path(b).resolve()


# The battery -------------------------------------------------------------------------------------


class Case(nn.Module):
    """A tiny model whose forward returns a loss; seeded, so every instance has the same weights."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(D, D)
        self.fc2 = nn.Linear(D, D)

    @staticmethod
    def batch():
        return (torch.randn(4, D, generator=torch.Generator().manual_seed(1)),)


# Harmful: each overwrites a tensor that a backward node saved.


class ReluAfterTanh(Case):
    def forward(self, x):
        h = torch.tanh(self.fc(x))  # SAVE
        F.relu_(h)  # WRITE
        return self.fc2(h).sum()


class DropoutOnSoftmax(Case):
    def forward(self, x):
        p = self.fc(x).softmax(-1)  # SAVE
        p = F.dropout(p, 0.5, training=True, inplace=True)  # WRITE
        return self.fc2(p).sum()


class DataWriteAfterTanh(Case):
    def forward(self, x):
        h = torch.tanh(self.fc(x))  # SAVE
        h.data.mul_(0.5)  # WRITE
        return self.fc2(h).sum()


class HooksThenRelu(Case):
    def forward(self, x):
        with saved_tensors_hooks(lambda t: t, lambda t: t):  # identity hooks: no version check
            h = torch.tanh(self.fc(x))  # SAVE
        F.relu_(h)  # WRITE
        return self.fc2(h).sum()


class Square(torch.autograd.Function):
    """x * x, keeping x as ctx.x instead of save_for_backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x * x  # SAVE (the first op its forward runs)

    @staticmethod
    def backward(ctx, grad):
        return 2 * ctx.x * grad


class CtxKeptThenAdd(Case):
    def forward(self, x):
        h = self.fc(x)
        y = Square.apply(h)
        h.add_(1.0)  # WRITE
        return y.sum()


class NumpyWriteAfterTanh(Case):
    def forward(self, x):
        h = torch.tanh(self.fc(x))  # SAVE
        h.detach().numpy()[:] = 0.0  # behind PyTorch's back: no aten op, no version bump
        return self.fc2(h).sum()


class SiblingViewWrite(Case):
    """Writes one column block of a tensor while the other block is saved: bytes intact, yet the
    two views share one version counter, so backward raises."""

    def __init__(self):
        super().__init__()
        self.wide = nn.Linear(D, 2 * D)

    def forward(self, x):
        qk = self.wide(x)
        q, k = qk[:, :D], qk[:, D:]
        s = k.sin()  # SAVE
        q.mul_(2.0)  # WRITE
        return s.sum() + self.fc2(q).sum()


# name: (case, node, attribute, expected check, the write touched the saved bytes)
HARMFUL = {
    "relu_ after tanh": (ReluAfterTanh, "TanhBackward0", "_saved_result", dg.Check.RAISES, True),
    "in-place dropout on softmax": (DropoutOnSoftmax, "SoftmaxBackward0", "_saved_result", dg.Check.RAISES, True),
    ".data write after tanh": (DataWriteAfterTanh, "TanhBackward0", "_saved_result", dg.Check.COUNTER_BLIND, True),
    "identity hooks, then relu_": (HooksThenRelu, "TanhBackward0", "_saved_result", dg.Check.HOOKS_SKIP_CHECK, True),
    "ctx.x kept, then add_": (CtxKeptThenAdd, "SquareBackward", "ctx.x", dg.Check.CTX_UNCHECKED, True),
    "numpy write after tanh": (NumpyWriteAfterTanh, "TanhBackward0", "_saved_result", dg.Check.UNSEEN_WRITE, True),
    "write to a sibling view": (SiblingViewWrite, "SinBackward0", "_saved_self", dg.Check.RAISES, False),
}


# Safe: an in-place write, but no backward node saved what it overwrote.


class ReluAfterLinear(Case):
    def forward(self, x):
        return self.fc2(F.relu_(self.fc(x))).sum()


class ReluAfterGelu(Case):
    def forward(self, x):
        h = F.gelu(self.fc(x))  # GELU saves its input, not its output
        F.relu_(h)
        return self.fc2(h).sum()


class ExpOnMatmul(Case):
    def forward(self, x):
        q = self.fc(x)
        scores = q @ q.transpose(-2, -1)
        return self.fc2(scores.exp_() @ q).sum()


class MaskedFillOnScores(Case):
    def forward(self, x):
        scores = (self.fc(x) @ self.fc2(x).transpose(-2, -1)) / math.sqrt(D)
        scores.masked_fill_(torch.ones(4, 4, dtype=torch.bool).triu(1), float("-inf"))
        return (scores.softmax(-1) @ x).sum()


class DropoutOnLinear(Case):
    def forward(self, x):
        return self.fc2(F.dropout(self.fc(x), 0.5, training=True, inplace=True)).sum()


class TokPlusPos(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.tok_emb = nn.Embedding(10, D)
        self.pos_emb = nn.Embedding(4, D)
        self.fc = nn.Linear(D, D)

    @staticmethod
    def batch():
        return (torch.randint(0, 10, (2, 4), generator=torch.Generator().manual_seed(1)),)

    def forward(self, idx):
        h = self.tok_emb(idx)
        h += self.pos_emb(torch.arange(idx.size(1)))
        return self.fc(h).sum()


class InplaceOnFreshZeros(Case):
    def forward(self, x):
        z = torch.zeros(4, D)
        z += self.fc(x)
        return self.fc2(z).sum()


class ReluAfterBatchNorm(Case):
    """BatchNorm saves its running stats and updates them in the same op: not an overwrite."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(D)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.fc2(self.act(self.bn(self.fc(x)))).sum()


class SiblingViewWriteThroughHooks(SiblingViewWrite):
    """As SiblingViewWrite, but the saved block goes through identity hooks: PyTorch checks
    nothing, and the saved bytes are intact, so there is nothing to report."""

    def forward(self, x):
        qk = self.wide(x)
        q, k = qk[:, :D], qk[:, D:]
        with saved_tensors_hooks(lambda t: t, lambda t: t):
            s = k.sin()
        q.mul_(2.0)
        return s.sum() + self.fc2(q).sum()


SAFE = {
    "relu_ after Linear": ReluAfterLinear,
    "relu_ after GELU": ReluAfterGelu,
    "exp_ on a matmul result": ExpOnMatmul,
    "masked_fill_ on scores": MaskedFillOnScores,
    "in-place dropout on a Linear output": DropoutOnLinear,
    "tok_emb += pos_emb": TokPlusPos,
    "in-place on a fresh torch.zeros": InplaceOnFreshZeros,
    "nn.ReLU(inplace=True) after BatchNorm": ReluAfterBatchNorm,
    "write to a sibling view through hooks": SiblingViewWriteThroughHooks,
}


def backward_raises(case):
    """Does a plain forward + backward of the case raise PyTorch's version-counter error?"""
    model = case()
    try:
        model(*model.batch()).backward()
    except RuntimeError as exc:
        assert INPLACE_ERROR in str(exc)
        return True
    return False


@pytest.mark.parametrize("name", HARMFUL)
def test_harmful_case_is_found_at_its_line_and_node(name):
    case, node, attribute, check, touched = HARMFUL[name]
    model = case()
    report = dg.diagnose(model, *model.batch())
    assert len(report.findings) == 1, str(report)
    finding = report.findings[0]
    assert (finding.node, finding.attribute, finding.check, finding.touched) == (node, attribute, check, touched)
    source = Square if case is CtxKeptThenAdd else case
    assert same_file(finding.saved_at.path, __file__)
    assert finding.saved_at.line == line_of(source, "# SAVE")
    if check == dg.Check.UNSEEN_WRITE:
        assert finding.write is None
    else:
        assert same_file(finding.write.location.path, __file__)
        assert finding.write.location.line == line_of(case, "# WRITE")
        assert re.fullmatch(r"aten\.\w+_\.\w+", finding.write.name), finding.write.name
    if check == dg.Check.COUNTER_BLIND:
        assert finding.saved_version == finding.current_version
    elif check != dg.Check.UNSEEN_WRITE:
        assert finding.saved_version < finding.current_version
    # The check the report names is the one PyTorch applies.
    assert backward_raises(case) == (check == dg.Check.RAISES)


@pytest.mark.parametrize("name", ["relu_ after tanh", "identity hooks, then relu_"])
def test_relu_cases_name_the_relu_op(name):
    model = HARMFUL[name][0]()
    assert dg.diagnose(model, *model.batch()).findings[0].write.name == "aten.relu_.default"


@pytest.mark.parametrize("name", SAFE)
def test_safe_case_gives_no_finding(name):
    model = SAFE[name]()
    report = dg.diagnose(model, *model.batch())
    assert report.findings == [], str(report)
    assert report.writes >= 1 and report.saved >= 1  # it did write in place, and the graph was inspected
    assert not backward_raises(SAFE[name])


SCANNED = """\
import torch
def f(x, y, d, net):
    x += y  # AUG
    x[0] = 1.0  # INDEX
    x.data = y  # DATA-SET
    x.data[0] = 2.0  # DATA-INDEX
    x.data.mul_(2)  # DATA-CALL
    x.mul_(2)  # CALL
    torch.relu_(x)  # FUNCTION
    act = torch.nn.ReLU(inplace=True)  # INPLACE
    torch.add(x, y, out=x)  # OUT
    d["key"] = x
    y = x.add(y)
    act = torch.nn.ReLU(inplace=False)
    super().__init__()
    n = 0
    n = n + 1
"""
SCANNED_KINDS = {
    "# AUG": "augmented assignment",
    "# INDEX": "index assignment",
    "# DATA-SET": "write through .data",
    "# DATA-INDEX": "write through .data",
    "# DATA-CALL": "write through .data (mul_)",
    "# CALL": "in-place call mul_",
    "# FUNCTION": "in-place call relu_",
    "# INPLACE": "inplace= argument",
    "# OUT": "out= argument",
}


def test_scanner_kinds_and_what_it_leaves_alone(tmp_path):
    (tmp_path / "pkg").mkdir()
    path = tmp_path / "pkg" / "code.py"
    path.write_text(SCANNED)
    lines = SCANNED.splitlines()
    expected = {
        (next(i for i, line in enumerate(lines, 1) if mark in line), kind) for mark, kind in SCANNED_KINDS.items()
    }
    assert {(c.line, c.kind) for c in dg.find_inplace_calls(path)} == expected
    assert dg.find_inplace_calls(tmp_path) == dg.find_inplace_calls(path)  # directories are walked
    assert str(dg.find_inplace_calls(path)[0]).endswith(": augmented assignment: x += y  # AUG")


def test_scanner_refuses_a_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="no-such.py"):
        dg.find_inplace_calls(tmp_path / "no-such.py")


# The private PyTorch APIs --------------------------------------------------------------------------


# probe -> the releases where it does not hold: torch 2.10 to 2.12 raise on a custom Function node's
# _raw_saved_tensors saved without hooks (the diagnoser's own hooks save what it reads there)
NOT_ON = {"diagnose-api:custom-function-node": ("2.10.", "2.11.", "2.12.")}


@pytest.mark.parametrize("name", torch_private.PROBES)
def test_probe_holds_on_this_torch(name):
    statement, check = torch_private.PROBES[name]
    holds, seen = check()
    if torch.__version__.startswith(NOT_ON.get(name, ())):
        assert not holds, f"probe {name} now holds on torch {torch.__version__}: {seen} (update NOT_ON)"
        return
    assert holds, f"probe {name} does not hold on torch {torch.__version__}: {seen}"
    assert statement.endswith(".") and seen


def test_probe_names_are_stable_and_end_with_the_whole_diagnosis():
    names = list(torch_private.PROBES)
    assert names[-1] == "diagnose-works"
    assert all(name.startswith("diagnose-api:") for name in names[:-1])


# probe: (module, attribute) it relies on, removed to simulate a torch without it
MISSING_API = {
    "diagnose-api:sequence-nr": ("torch._C._autograd", "_get_sequence_nr"),
    "diagnose-api:saved-tensor-hooks-stack": ("torch._C._autograd", "_top_saved_tensors_default_hooks"),
    "diagnose-api:dispatch-mode": ("torch.utils._python_dispatch", "TorchDispatchMode"),
    "diagnose-api:dispatch-after-autograd": ("torch._C._autograd", "_get_sequence_nr"),
    "diagnose-api:disable-dispatch": ("torch._C", "_DisableTorchDispatch"),
    "diagnose-api:innermost-dispatch-mode": ("torch.utils._python_dispatch", "_get_current_dispatch_mode"),
    "diagnose-api:custom-function-node": ("torch.autograd.function", "BackwardCFunction"),
    "diagnose-api:refused-before-dispatch": ("torch._C._autograd", "_get_creation_meta"),
    "diagnose-works": ("torch._C", "_DisableTorchDispatch"),
}


@pytest.mark.parametrize("name", MISSING_API)
def test_probe_of_a_missing_api_is_not_applicable(name):
    module_path, attribute = MISSING_API[name]
    module = functools.reduce(getattr, module_path.split(".")[1:], torch)
    with mock.patch.object(module, attribute):
        delattr(module, attribute)
        holds, seen = torch_private.PROBES[name][1]()
    assert hasattr(module, attribute)  # restored
    assert not holds
    assert seen.startswith(torch_private.NOT_APPLICABLE) and f"{module_path}.{attribute}" in seen, seen


PRIVATE_TORCH_API = re.compile(
    r"torch\._(?!_)|\._C\b|_python_dispatch|TorchDispatchMode|_DisableTorchDispatch|_get_sequence_nr"
    r"|_top_saved_tensors|BackwardCFunction|\b_raw_saved|\b_saved_|\._version\b|\._sequence_nr\b"
    r"|\._schema\b|\._base\b|\._is_view\b|untyped_storage|data_ptr"
)


def test_only_torch_private_mentions_private_torch_apis():
    private = Path(torch_private.__file__)
    others = sorted(p for p in private.parent.glob("*.py") if p != private)
    assert {p.name for p in others} >= {"__init__.py", "scan.py"}
    mentions = {p.name: sorted(set(PRIVATE_TORCH_API.findall(p.read_text(encoding="utf-8")))) for p in others}
    assert {name: found for name, found in mentions.items() if found} == {}
    assert len(set(PRIVATE_TORCH_API.findall(private.read_text(encoding="utf-8")))) >= 10  # the pattern works


def test_display_path_is_relative_to_the_working_directory_or_to_sys_path(tmp_path, monkeypatch):
    from inplace_doctor.location import display_path

    package = tmp_path / "lib" / "pkg"
    package.mkdir(parents=True)
    module = package / "mod.py"
    monkeypatch.chdir(tmp_path)
    assert display_path(str(module)) == "lib/pkg/mod.py"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr("sys.path", [str(tmp_path), str(tmp_path / "lib")])
    assert display_path(str(module)) == "pkg/mod.py"  # the entry that holds it most closely
    monkeypatch.setattr("sys.path", [])
    assert display_path(str(module)) == str(module)


# The command for any script (python -m inplace_doctor) -------------------------

GATED = """\
import sys
import torch
import torch.nn as nn


class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.value = nn.Linear(8, 16)
        self.gate = nn.Sequential(nn.Linear(8, 16), nn.Sigmoid(), nn.ReLU(inplace=True))  # BUILT
        self.out = nn.Linear(16, 1)

    def forward(self, x):
        return self.out(self.value(x) * self.gate(x))  # CALL


if __name__ == "__main__":
    print("arguments", sys.argv[1:])
    torch.manual_seed(0)
    model = Gated()
    for step in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        print("step", step, flush=True)
        loss = model(torch.randn(4, 8)).pow(2).mean()
        loss.backward()  # BACKWARD
"""


def script(tmp_path, source, name="train.py"):
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return path


def marked_line(source, mark):
    return next(n for n, line in enumerate(source.splitlines(), 1) if line.rstrip().endswith(mark))


def test_command_runs_a_script_as_it_is_and_names_the_line_that_built_the_module(
    tmp_path, tool_env, subprocess_timeout
):
    path = script(tmp_path, GATED)
    proc = subprocess.run(
        [sys.executable, "-m", "inplace_doctor", path.name, "5"],
        cwd=tmp_path,
        env=tool_env,
        capture_output=True,
        text=True,
        timeout=subprocess_timeout,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr == ""
    out = proc.stdout
    assert "arguments ['5']" in out and "step 0" in out and "step 1" not in out  # stopped after backward 1
    assert f"written at: train.py:{marked_line(GATED, '# CALL')} in Gated.gate.2 (ReLU)" in out
    assert f"built at:   train.py:{marked_line(GATED, '# BUILT')}:" in out
    assert "SigmoidBackward0._saved_result" in out and "check:      backward raises" in out
    assert f"backward 1 at train.py:{marked_line(GATED, '# BACKWARD')}" in out
    assert "fix:        build that nn.ReLU without inplace=True" in out


def run_command(capsys, *argv):
    status = runner.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    "files, argv, message",
    [
        ({}, ["missing.py"], "no such file: 'missing.py'"),
        ({}, ["missing"], "no such file: 'missing'"),
        ({"folder/x.py": ""}, ["folder"], "'folder' is a folder, not a Python script (.py)"),
        ({"notes.txt": "hello"}, ["notes.txt"], "'notes.txt' is not a Python script (.py)"),
        ({"bad.py": "x = (\n"}, ["bad.py"], "cannot compile bad.py: SyntaxError"),
        (
            {"quits.py": "import sys\nsys.exit(3)\n"},
            ["quits.py"],
            "quits.py exited with status 3 before its first backward",
        ),
        (
            {"ok.py": ""},
            ["--steps", "0", "ok.py"],
            "--steps takes a number of backward passes (1 or more) or all, not '0'",
        ),
        ({"ok.py": ""}, ["--fast", "ok.py"], "unknown option '--fast'"),
        ({}, [], "no script given"),
    ],
)
def test_command_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, files, argv, message):
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        script(tmp_path, text, name)
    status, out, err = run_command(capsys, *argv)
    assert status == 2
    assert err.startswith("inplace_doctor: error: ") and err.count("\n") == 1 and message in err, err
    assert "Traceback" not in out + err
    assert runner.main(list(argv), prog="course diagnose") == 2  # a shortcut that calls main keeps its own name
    assert capsys.readouterr().err.startswith("course: error: ")


def test_command_version_and_help_of_its_own(capsys):
    status, out, err = run_command(capsys, "--version")
    assert (status, err) == (0, "") and out == f"inplace-doctor {dg.__version__} (torch {torch.__version__})\n"
    status, out, err = run_command(capsys, "--help")
    assert status == 0 and err == "" and out.startswith("usage: python -m inplace_doctor [--steps N|all] SCRIPT.py")
    assert "--version" in out and "pytest --inplace-doctor" in out and "minigpt" not in out


def test_the_first_line_counts_the_program_s_writes_but_not_weight_initialisation(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    script(
        tmp_path, "import torch.nn as nn\nimport torch\nnet = nn.Linear(4, 2)\nnet(torch.ones(3, 4)).sum().backward()\n"
    )
    status, out, _ = run_command(capsys, "train.py")
    assert status == 0
    assert " aten ops before it, 0 of them in-place writes (and 2 writes of a module's weight initialisation);" in out
    assert "it reads 1 saved tensor in 5 backward nodes" in out, out  # each count's noun agrees with it
    script(tmp_path, "import torch\nx = torch.ones(3, requires_grad=True) * 2\nx.add_(1)\nx.sum().backward()\n")
    status, out, _ = run_command(capsys, "train.py")
    assert status == 0 and "1 of them an in-place write; it reads 1 saved tensor in 4 backward nodes" in out, out
    assert "initialisation" not in out  # no module, nothing left out: no note about it


def test_a_finding_on_a_node_backward_had_already_run_reads_as_a_sentence():
    finding = dg.Finding("", "a saved tensor of a node that this backward had already run", None, 0, 1, None, [], "")
    assert finding.headline() == "an unseen write overwrote a saved tensor of a node that this backward had already run"


def test_command_restores_the_interpreter_it_ran_in(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    script(
        tmp_path,
        "import sys\nsys.path.append('added')\nimport torch\nx = torch.ones(2, requires_grad=True)\n"
        "(x * 2).sum().backward()\n",
    )
    argv, path, main = list(sys.argv), list(sys.path), sys.modules["__main__"]
    assert run_command(capsys, "train.py")[0] == 0
    assert (sys.argv, sys.path, sys.modules["__main__"]) == (argv, path, main)
    assert (
        torch.Tensor.backward.__module__ == "torch._tensor" and torch.autograd.backward.__module__ == "torch.autograd"
    )


def test_command_steps(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    script(tmp_path, GATED.replace("nn.ReLU(inplace=True)", "nn.ReLU()"))
    for steps, ran in (([], 3), (["--steps", "2"], 2), (["--steps=all"], 3), (["--steps", "1"], 1)):
        status, out, _ = run_command(capsys, *steps, "train.py")
        assert status == 0 and out.count("\nstep ") == ran, out
        assert ("stopped train.py after backward" in out) == (ran < 3)
    status, out, _ = run_command(capsys, "train.py", "25")  # the default cap: 10 backward passes
    assert status == 0 and out.count("\nstep ") == runner.DEFAULT_CAP, out
    assert "stopped train.py after backward 10 (the default cap; --steps N or --steps all runs on)" in out


GRADIENT_PENALTY = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
x = torch.randn(8, 2, requires_grad=True)
score = critic(x)
(grad,) = torch.autograd.grad(score.sum(), x, create_graph=True)
penalty = (grad.norm(dim=1) - 1).pow(2).mean()
h = torch.tanh(score)
h.mul_(2.0)  # WRITE
loss = h.mean() + penalty
loss.backward()
"""


def test_a_gradient_penalty_is_not_the_step_the_command_stops_at(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    script(tmp_path, GRADIENT_PENALTY)
    status, out, _ = run_command(capsys, "train.py")
    assert status == 1, out
    assert f"written at: train.py:{marked_line(GRADIENT_PENALTY, '# WRITE')}" in out


@pytest.mark.parametrize(
    "code, op, what",
    [
        ("w = torch.ones(3, requires_grad=True)\nw.add_(1.0)\n", "Tensor.add_", dg.findings.LEAF),
        ("h = torch.ones(3, requires_grad=True) * 2\nh.resize_(6)\n", "Tensor.resize_", dg.findings.RESIZED),
    ],
)
def test_command_reports_a_write_pytorch_refuses(tmp_path, monkeypatch, capsys, code, op, what):
    monkeypatch.chdir(tmp_path)
    script(tmp_path, "import torch\n" + code)
    status, out, err = run_command(capsys, "train.py")
    assert status == 1 and err == ""
    assert f"{op} was refused by PyTorch: it writes in place {what}\n  written at: train.py:3:" in out


@pytest.mark.parametrize(
    "code",
    [
        "w = torch.ones(3, requires_grad=True)\nwith torch.no_grad():\n    w.add_(torch.ones(5))\n",
        "h = torch.ones(3, requires_grad=True) * 2\nh.requires_grad_(False)\n",
        "q, k = (torch.ones(4, requires_grad=True) * 2).split(2)\ntorch.matmul(q, torch.ones(3))\n",
    ],
)
def test_an_error_of_an_inplace_call_that_is_no_refusal_stays_the_scripts_own(tmp_path, monkeypatch, capsys, code):
    """A shape error in an in-place write under no_grad, a flag PyTorch will not change, an
    out-of-place call on a split's output: the tensor's state is not what PyTorch refuses to write."""
    monkeypatch.chdir(tmp_path)
    script(tmp_path, "import torch\n" + code)
    status, out, err = run_command(capsys, "train.py")
    assert status == 2 and "refused" not in out and "train.py failed before its first backward: RuntimeError" in err


def refused_update():
    torch.manual_seed(0)
    w = torch.randn(8, 1, requires_grad=True)
    (torch.randn(4, 8) @ w).pow(2).mean().backward()
    w -= 0.1 * w.grad  # REFUSED
    return w


def test_diagnose_and_watch_report_a_refused_write_as_the_finding_that_explains_the_error():
    report = dg.diagnose(refused_update)
    finding = report.explained_by
    assert report.raised.startswith("a leaf Variable that requires grad"), str(report)
    assert (finding.check, finding.node) == (dg.Check.REFUSED, dg.findings.LEAF)
    assert finding.write.location.line == line_of(refused_update, "# REFUSED")
    assert "write inside torch.no_grad()" in finding.fix
    with pytest.raises(RuntimeError, match="refused by PyTorch") as raised:
        with dg.watch(quiet=True):
            refused_update()
    assert "a leaf Variable that requires grad" in str(raised.value.__cause__)


def test_a_script_failing_after_a_clean_backward_is_reported_with_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    script(
        tmp_path,
        "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\nraise KeyError('later')\n",
    )
    status, out, err = run_command(capsys, "--steps", "all", "train.py")
    assert status == 2 and "0 findings" in out
    assert err == (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 4, in <module>\n'
        "    raise KeyError('later')\n"
        "KeyError: 'later'\n"
        "inplace_doctor: error: train.py raised KeyError: 'later' (train.py:4)\n"
    )


def test_a_script_s_own_error_keeps_its_traceback_with_none_of_the_diagnoser_s_frames(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    script(tmp_path, "import torch\n\n\ndef check(x):\n    raise ValueError('bad shape')\n\n\ncheck(torch.ones(3))\n")
    status, out, err = run_command(capsys, "train.py")
    assert status == 2 and out.startswith("inplace_doctor: running train.py")
    assert err == (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 8, in <module>\n'
        "    check(torch.ones(3))\n"
        '  File "train.py", line 5, in check\n'
        "    raise ValueError('bad shape')\n"
        "ValueError: bad shape\n"
        "inplace_doctor: error: train.py failed before its first backward: ValueError: bad shape (train.py:5)\n"
    ), err


# watch() and diagnose(fn) ----------------------------------------------------------------------------


def gated_train(steps):
    """A training function as users write them: builds its model and calls backward itself."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Sigmoid(), nn.ReLU(inplace=True), nn.Linear(16, 1))  # BUILT
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        loss = model(torch.randn(4, 8)).pow(2).mean()  # CALL
        opt.zero_grad()
        loss.backward()
        opt.step()


def test_diagnose_of_a_function_that_runs_backward_itself():
    report = dg.diagnose(lambda: gated_train(steps=1))
    assert len(report.findings) == 1 and report.raised is not None, str(report)
    finding = report.findings[0]
    assert (finding.node, finding.check, finding.backward) == ("SigmoidBackward0", dg.Check.RAISES, 1)
    assert finding.write.location.line == line_of(gated_train, "# CALL")
    assert finding.write.location.built.line == line_of(gated_train, "# BUILT")  # built inside the target


def test_watch_replaces_pytorch_error_with_the_finding_chained(capsys):
    with pytest.raises(RuntimeError) as raised:
        with dg.watch() as watched:
            gated_train(steps=2)
    message = str(raised.value)
    assert message.startswith("backward 1 raised PyTorch's in-place error")
    assert "overwrote SigmoidBackward0._saved_result" in message
    assert re.search(rf"built at:   \S*{Path(__file__).name}:{line_of(gated_train, '# BUILT')}:", message), message
    assert INPLACE_ERROR in str(raised.value.__cause__)
    assert watched.report.raised is not None and len(watched.report.findings) == 1
    assert torch.autograd.backward.__module__ == "torch.autograd"  # restored on the way out


def test_watch_reports_each_backward_and_changes_nothing(capsys):
    def train(model, steps):
        torch.manual_seed(1)
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        for _ in range(steps):
            h = torch.tanh(model(torch.randn(4, 8)))
            h.data.mul_(0.5)  # a silent write: backward runs, with wrong gradients
            opt.zero_grad()
            h.pow(2).mean().backward()
            opt.step()
        return [p.detach().clone() for p in model.parameters()]

    torch.manual_seed(0)
    plain = train(nn.Linear(8, 8), 3)
    torch.manual_seed(0)
    model = nn.Linear(8, 8)
    with dg.watch() as watched:
        diagnosed = train(model, 3)
    assert all(torch.equal(a, b) for a, b in zip(plain, diagnosed, strict=False))
    err = capsys.readouterr().err
    assert "inplace_doctor.watch: backward 1" in err and "aten.mul_.Tensor overwrote TanhBackward0" in err
    assert "3 backward passes; 1 finding: 0 caught by PyTorch's version check at backward, 1 silent" in err
    report = watched.report
    assert [f.check for f in report.findings] == [dg.Check.COUNTER_BLIND] and report.findings[0].repeats == 2


def test_watch_lets_other_errors_through():
    with pytest.raises(ValueError, match="not ours"):
        with dg.watch(quiet=True):
            raise ValueError("not ours")


# Checkpoints, optimizers, in-place metadata ops: as PyTorch behaves ---------------------------------


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_checkpoint_runs_its_block_as_often_as_without_the_diagnoser(use_reentrant):
    from torch.utils.checkpoint import checkpoint

    def run():
        calls = []

        def block(t):
            calls.append(1)
            return torch.tanh(fc(t))

        torch.manual_seed(0)
        fc, head = nn.Linear(8, 8), nn.Linear(8, 1)
        x = torch.randn(4, 8, requires_grad=True)
        y = checkpoint(block, checkpoint(block, x, use_reentrant=use_reentrant), use_reentrant=use_reentrant)
        head(y).sum().backward()
        return len(calls), x.grad

    plain_calls, plain_grad = run()
    with dg.watch(quiet=True) as watched:
        calls, grad = run()
    assert (calls, plain_calls) == (4, 4) and torch.equal(grad, plain_grad)
    assert watched.report.findings == [] and watched.report.raised is None


TWO_BACKWARD = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.{optimizer}(model.parameters(), lr=0.1, {flag}=True)
out = model(torch.randn(32, 8))
out.pow(2).mean().backward(retain_graph=True)
opt.step()
out.abs().mean().backward()
"""


@pytest.mark.parametrize("flag", ["foreach", "fused"])
@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "AdamW"])
def test_optimizer_steps_are_labelled_as_pytorch_behaves(optimizer, flag):
    """An optimizer step between two backward passes of one forward: foreach steps bump the
    version counters (PyTorch raises), fused ones do not (silently wrong gradients)."""
    code = compile(TWO_BACKWARD.format(optimizer=optimizer, flag=flag), "two_backward.py", "exec")

    def run():
        namespace = {}
        try:
            exec(code, namespace)
            error = None
        except RuntimeError as exc:
            error = exc
        model = namespace["model"]
        return error, [(torch_private.version(p), p.detach().clone(), p.grad.clone()) for p in model.parameters()]

    plain_error, plain_state = run()
    with pytest.raises(RuntimeError) if plain_error else contextlib.nullcontext():
        with dg.watch(quiet=True) as watched:
            error, state = run()
            if error is not None:
                raise error
    assert [v for v, _, _ in state] == [v for v, _, _ in plain_state]  # the same version counters
    assert all(
        torch.equal(a, b) and torch.equal(ga, gb) for (_, a, ga), (_, b, gb) in zip(state, plain_state, strict=False)
    )
    checks = {f.check for f in watched.report.findings}
    assert checks == ({dg.Check.RAISES} if plain_error else {dg.Check.COUNTER_BLIND}), str(watched.report)
    step_line = TWO_BACKWARD.splitlines().index("opt.step()") + 1
    assert all(f.write.location.line == step_line for f in watched.report.findings)


@pytest.mark.parametrize(
    "write, label",
    [
        ("mask.detach_()", None),  # not a tensor of the graph: nothing to cut
        ("s.detach_()", None),  # saved only as sigmoid's result, whose values stay: PyTorch lets it be
        ("h.detach_()", dg.Check.DETACHED),
        ("torch.detach_(h)", dg.Check.DETACHED),
        ("mask.resize_(4, 8)", dg.Check.RAISES),
        ("mask.resize_(64, 8)", dg.Check.RAISES),
        ("h.t_()", dg.Check.RAISES),
        ("h.unsqueeze_(0)", dg.Check.RAISES),
        ("h.as_strided_((8, 8), (1, 8))", dg.Check.RAISES),
        ("mask.set_(torch.zeros(8, 8))", dg.Check.RAISES),
        ("mask.data.zero_()", dg.Check.COUNTER_BLIND),
    ],
)
def test_inplace_metadata_ops_on_saved_tensors(write, label):
    """detach_, resize_, t_, set_...: each labelled as PyTorch then behaves at backward."""

    def run():
        torch.manual_seed(0)
        fc, head = nn.Linear(8, 8), nn.Linear(8, 1)
        mask = (torch.rand(8, 8) > 0.5).float()
        x = torch.randn(8, 8)
        h, s = torch.tanh(fc(x)), torch.sigmoid(fc(x))
        loss = (head(h) * mask[:, :1]).pow(2).mean() + s.sum()
        exec(write, {"torch": torch, "h": h, "s": s, "mask": mask})
        loss.backward()
        return fc.weight.grad

    try:
        expected = run()
    except RuntimeError as exc:
        expected = exc
    report = dg.diagnose(run)
    if label is None:
        assert report.findings == [] and not isinstance(expected, RuntimeError)
        return
    assert label in {f.check for f in report.findings}, str(report)
    assert (report.raised is not None) == isinstance(expected, RuntimeError) == (label in dg.findings.RAISING)
    if label == dg.Check.DETACHED:
        assert "detached in-place" in report.raised and "detached in-place" in str(expected)


# CUDA: the whole battery runs with CUDA as the default device in test_diagnose_battery.py
# (test_case_on_cuda); gpu/doctor_cuda.sh runs it with the bench's GPU rows.


# The cost: digests, not copies ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.randn(1000),
        lambda: torch.randn(600, 700),  # one number, several (> CHUNK elements)
        lambda: torch.randn(64, 48).t(),
        lambda: torch.randn(8, 8, dtype=torch.float64),
        lambda: torch.randn(40, 40).to(torch.bfloat16),
        lambda: torch.randint(0, 9, (500,)),
        lambda: torch.rand(300) > 0.5,
        lambda: torch.randn(50, dtype=torch.complex64),
    ],
)
def test_a_digest_sees_any_single_changed_element(make):
    from inplace_doctor.digest import changed as differ
    from inplace_doctor.digest import digest

    def same_digest(a, b):
        return not differ([(a, b)])[0]

    tensor = make()
    before = digest(tensor)
    assert same_digest(before, digest(tensor.clone()))
    flat = tensor.view(-1) if tensor.is_contiguous() else None
    generator = torch.Generator().manual_seed(0)
    for index in torch.randint(0, tensor.numel(), (20,), generator=generator).tolist():
        changed = tensor.clone().reshape(-1)
        changed[index] = ~changed[index] if changed.dtype == torch.bool else changed[index] + 1
        assert not same_digest(before, digest(changed.reshape(tensor.shape))), index
    assert (
        flat is None
        or not same_digest(before, digest(flat.flip(0).reshape(tensor.shape)))
        or torch.equal(flat, flat.flip(0))
    )  # a permutation shows too


# Where people train: GAN and actor-critic orders, RNN state, views, NumPy aliases, helpers -----------

# The battery's GAN case, with the line that calls the helper marked for the chain's check.
GAN = (
    (BATTERY / "gan_retain_graph_in_function.py")
    .read_text(encoding="utf-8")
    .replace("    train_step()\n", "    train_step()  # CALL\n")
    .replace("# WRITE twin: pass", "# WRITE")
)


def test_the_command_finds_a_gan_step_between_two_backward_passes_by_default(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    script(tmp_path, GAN)
    status, out, err = run_command(capsys, "train.py")
    assert status == 1 and err == "", out + err
    assert f"written at: train.py:{marked_line(GAN, '# WRITE')}: opt_d.step()" in out
    assert f"called from: train.py:{marked_line(GAN, '# CALL')}: train_step()" in out  # the chain to the script
    assert "backward 2 at train.py" in out and "it raised: one of the variables needed" in out
    assert (
        "0 findings" not in out
        and "call backward on every loss that uses these parameters before optimizer.step() (the call at train.py:"
        in out
    )


def test_the_command_never_exits_0_when_pytorch_raised_its_inplace_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    script(
        tmp_path,
        "import torch\nx = torch.randn(3, requires_grad=True)\nfor step in range(3):\n"
        "    h = torch.sigmoid(x)\n    h.mul_(2)\n    try:\n        h.sum().backward()\n"
        "    except RuntimeError:\n        print('skipping a bad batch')\n",
    )
    for steps in ([], ["--steps", "all"]):
        status, out, _ = run_command(capsys, *steps, "train.py")
        assert status == 1 and "written at: train.py:5: h.mul_(2)" in out, out
        assert out.count("skipping a bad batch") == (0 if not steps else 3)
        assert ("the script caught it and went on" in out) == bool(steps)


def test_diagnose_of_a_gan_step_records_the_step_and_examines_the_returned_graph():
    torch.manual_seed(0)
    G, D = nn.Linear(4, 2), nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
    opt_d = torch.optim.SGD(D.parameters(), lr=0.1)

    def step():
        fake = G(torch.randn(8, 4))
        d_fake = D(fake)
        d_loss = d_fake.mean() - D(torch.randn(8, 2)).mean()
        g_loss = -d_fake.mean()
        d_loss.backward(retain_graph=True)
        opt_d.step()  # WRITE
        return g_loss

    report = dg.diagnose(step)
    assert report.findings and all(f.check == dg.Check.RAISES for f in report.findings), str(report)
    assert {f.write.location.line for f in report.findings} == {line_of(step, "# WRITE")}
    assert report.passes[-1].number is None  # the returned graph, examined after the function
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        step().backward()  # what PyTorch says of the same


class Trainer:
    """Keeps its last output on itself, as loggers and trainers do."""

    def __init__(self):
        torch.manual_seed(0)
        self.encoder, self.head = nn.Linear(8, 16), nn.Linear(16, 1)
        self.last = None

    def forward(self, x, write):
        h = torch.sigmoid(self.encoder(x))
        self.last = self.head(h).pow(2).mean()  # SAVED
        if write:
            h.mul_(2.0)  # LEFT WRITE


@pytest.mark.parametrize("write", [True, False])
def test_diagnose_examines_a_graph_the_function_leaves_on_an_object(write):
    trainer = Trainer()
    report = dg.diagnose(trainer.forward, torch.randn(4, 8), write)
    assert report.passes and report.passes[-1].number is None, str(report)
    assert report.passes[-1].nodes > 0  # the graph it left was walked
    assert {f.write.location.line for f in report.findings} == ({line_of(Trainer, "# LEFT WRITE")} if write else set())
    if write:
        assert line_of(Trainer, "# SAVED") in {f.saved_at.line for f in report.findings}, str(report)
        assert all(f.backward is None and f.check == dg.Check.RAISES for f in report.findings)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            trainer.last.backward()  # what PyTorch says of the graph it left


def test_watch_examines_the_graphs_left_at_the_end_of_the_block(capsys):
    trainer = Trainer()
    with dg.watch() as watched:
        trainer.forward(torch.randn(4, 8), write=True)
    err = capsys.readouterr().err
    assert "inplace_doctor.watch: the graphs left at the end of the block: 1 new finding" in err, err
    assert "met again:  1 more time, the same write" in err  # one bug: the same write, two saved tensors
    assert {f.write.location.line for f in watched.report.findings} == {line_of(Trainer, "# LEFT WRITE")}
    assert all(f.left for f in watched.report.findings)


LEFT_IN_A_GLOBAL = """import torch
import torch.nn as nn

history = []


def train():
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        loss = model(torch.randn(4, 8)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()  # WRITE
        history.append(model(torch.randn(4, 8)).pow(2).mean())


train()
"""


def test_the_command_notes_what_the_graphs_a_script_leaves_would_meet(tmp_path, monkeypatch, capsys):
    """A validation loss kept with its graph in a list, across optimizer steps: the graphs left
    behind hold weights the later steps overwrote (a backward from them would raise), but no
    backward reads them, so PyTorch raises nothing and no gradient is wrong: a note, exit status 0."""
    monkeypatch.chdir(tmp_path)
    script(tmp_path, LEFT_IN_A_GLOBAL)
    status, out, _ = run_command(capsys, "--steps", "all", "train.py")
    assert status == 0, out
    assert "the graphs of the tensors the program returned or left" in out
    assert "\n[1] " not in out and "0 findings" in out, out
    write = marked_line(LEFT_IN_A_GLOBAL, "# WRITE")
    assert "note: train.py left graphs alive that no backward read: a backward from them would have met " in " ".join(
        out.split()
    ), out
    assert f"overwrote AddmmBackward0._saved_mat2, at train.py:{write}). None ran, so no gradient is wrong" in " ".join(
        out.split()
    ), out
    read = LEFT_IN_A_GLOBAL + "history[0].backward()\n"  # a later backward reads the first: a finding
    script(tmp_path, read, "read.py")
    status, out, _ = run_command(capsys, "--steps", "all", "read.py")
    assert status == 1 and f"written at: read.py:{write}" in out and "note: read.py left" not in out, out


def test_a_graph_retained_by_a_backward_and_kept_is_not_a_finding_after_the_step():
    """d_loss.backward(retain_graph=True), both losses backwarded, then the step: the graphs the
    function keeps were examined by those backward passes, so the step over them finds nothing."""
    torch.manual_seed(0)
    G, D = nn.Linear(4, 2), nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
    opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
    kept = {}

    def step():
        d_fake = D(G(torch.randn(8, 4)))
        kept["d_loss"] = d_fake.mean() - D(torch.randn(8, 2)).mean()
        kept["d_loss"].backward(retain_graph=True)
        (-d_fake.mean()).backward()
        opt_d.step()

    report = dg.diagnose(step)
    assert report.findings == [] and len(report.passes) == 2, str(report)


def test_an_rnn_state_carried_across_an_optimizer_step_is_found_by_default(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    script(
        tmp_path,
        "import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\ncell = nn.RNNCell(4, 8)\n"
        "opt = torch.optim.SGD(cell.parameters(), lr=0.1)\nh = torch.zeros(2, 8)\n"
        "for step in range(4):\n    h = cell(torch.randn(2, 4), h)\n    loss = h.pow(2).mean()\n"
        "    opt.zero_grad()\n    loss.backward(retain_graph=True)\n    opt.step()  # WRITE\n",
    )
    status, out, _ = run_command(capsys, "train.py")
    assert status == 1 and "written at: train.py:12: opt.step()" in out and "backward 2 at" in out, out


# The battery's case: a custom Function returns a view of its input, filled in place under no_grad.
VIEW_OF_A_FUNCTION = (
    (BATTERY / "view_custom_function_fill.py")
    .read_text(encoding="utf-8")
    .replace("# WRITE twin: out = torch.full_like(out, 1.0)", "# WRITE")
)


def test_a_view_whose_base_was_modified_is_recognised_and_named_at_its_write(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    script(tmp_path, VIEW_OF_A_FUNCTION)
    with pytest.raises(RuntimeError, match="is a view and its base or another view of its base has been modified"):
        exec(compile(VIEW_OF_A_FUNCTION, "view.py", "exec"), {"__name__": "__main__"})  # PyTorch's verdict
    status, out, err = run_command(capsys, "train.py")
    assert status == 1 and err == "", out + err
    assert f"written at: train.py:{marked_line(VIEW_OF_A_FUNCTION, '# WRITE')}: out.fill_(1.0)" in out
    assert f"check:      {dg.findings.VIEW_MODIFIED}" in out and "out = out.clone()" in out


def test_a_numpy_alias_written_later_is_named_at_the_line_that_wrote_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    source = (
        "import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\nfc1, fc2 = nn.Linear(8, 16), nn.Linear(16, 1)\n"
        "out = torch.tanh(fc1(torch.randn(32, 8)))\nimg = out.detach().numpy()\nscale = 2.0\n"
        "img *= scale\nloss = fc2(out).pow(2).mean()\nloss.backward()\n"
    )
    script(tmp_path, source)
    status, out, _ = run_command(capsys, "train.py")
    assert status == 1, out
    assert "written at: train.py:8: img *= scale (the saved values had changed after this line)" in out
    assert "through:    a NumPy array of the same memory, made at train.py:6" in out
    assert sys.gettrace() is None  # the line tracer is gone


# The battery's actor-critic case: the target network synced in a helper between two backward passes.
TARGET_NETWORK = (
    (BATTERY / "target_network_helper.py")
    .read_text(encoding="utf-8")
    .replace("update_network_parameters()  # twin: pass", "update_network_parameters()  # CALL")
)


def test_a_target_network_update_in_a_helper_is_named_with_its_call_and_the_ordering_advice(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    script(tmp_path, TARGET_NETWORK)
    status, out, _ = run_command(capsys, "train.py")
    assert status == 1, out
    assert f"written at: train.py:{marked_line(TARGET_NETWORK, '# WRITE')}: target.load_state_dict(" in out
    call = marked_line(TARGET_NETWORK, "# CALL")
    assert f"called from: train.py:{call}: update_network_parameters()" in out
    assert (
        f"fix:        this update overwrites values a graph still needs (a target network or a cache): make "
        f"the update (the call at train.py:{call}: update_network_parameters()  # CALL) after every backward" in out
    )


@pytest.mark.parametrize(
    "code, advice",
    [
        (
            "h = torch.sin(w)\nw.grad = torch.ones(4)\ntorch.optim.SGD([w], lr=0.1).step()\n",
            "call backward on every loss that uses these parameters before optimizer.step()",
        ),  # an optimizer step
        (
            "h = torch.sin(w)\nwith torch.no_grad():\n    w.copy_(torch.zeros(4))\n",
            "this update overwrites values a graph still needs (a target network or a cache)",
        ),
        ("h = torch.sigmoid(w * 1)\nh.relu_()\n", "use the out-of-place relu: h = h.relu(...) instead of h.relu_(...)"),
        ("y = w * 1\nv = y[:2]\nh = torch.sin(v)\ny[2:].zero_()\n", "give the written view its own memory (.clone())"),
    ],
)
def test_the_advice_matches_the_situation(tmp_path, monkeypatch, code, advice):
    """An optimizer step, a target-network or cache update, an activation, a write to a view."""
    monkeypatch.chdir(tmp_path)
    path = script(tmp_path, "import torch\nw = torch.randn(4, requires_grad=True)\n" + code + "h.sum().backward()\n")
    report = runner.run_script(runner.Options(str(path), [], steps=None)).report
    assert len(report.findings) == 1, str(report)
    assert advice in report.findings[0].fix, report.findings[0].fix


INTERNAL = (
    "import torch\nx = torch.randn(3, requires_grad=True)\ntry:\n    y = torch.tanh(x)\nexcept Exception:\n"
    "    print('swallowed')\n    y = x\ny.sum().backward()\nprint('went on')\n"
)


def test_the_diagnosers_own_failure_is_one_line_exit_2_and_never_swallowed(tmp_path, monkeypatch, capsys):

    def broken(tensor):
        raise ValueError("a digest bug")

    monkeypatch.chdir(tmp_path)
    script(tmp_path, INTERNAL)
    monkeypatch.setattr(inplace_doctor.recorder, "digest", broken)
    status, out, err = run_command(capsys, "train.py")
    assert status == 2 and "swallowed" not in out and "went on" not in out, out + err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert re.match(
        r"inplace_doctor: error: internal error in the diagnoser \(ValueError: a digest bug at "
        r"\S*inplace_doctor/recorder\.py:\d+\) while recording a saved tensor at train\.py:4;",
        err,
    ), err
    assert "the program was stopped there and not changed" in err
    with pytest.raises(dg.InternalError, match="internal error in the diagnoser"):
        dg.diagnose(lambda: torch.tanh(torch.randn(3, requires_grad=True)).sum())
    with pytest.raises(dg.InternalError):
        with dg.watch():
            torch.tanh(torch.randn(3, requires_grad=True)).sum().backward()
    assert torch.autograd.backward.__module__ == "torch.autograd"  # restored all the same


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.empty(0),
        lambda: torch.empty(0, 5),
        lambda: torch.empty(3, 0),
        lambda: torch.empty(0, dtype=torch.bfloat16),
    ],
)
def test_a_digest_of_an_empty_tensor(make):
    from inplace_doctor.digest import changed, digest

    d = digest(make())
    assert d is not None and d.numel() == 0 and d.dtype == torch.int32
    assert changed([(d, digest(make())), (digest(torch.ones(3)), digest(torch.ones(3) * 2))]) == [False, True]


def test_an_empty_saved_tensor_changes_nothing(tmp_path, monkeypatch, capsys):
    """checkpoint(use_reentrant=False) saves empty tensors; so does an op on an empty batch."""
    monkeypatch.chdir(tmp_path)
    script(
        tmp_path,
        "import torch\nx = torch.randn(0, 4, requires_grad=True)\nw = torch.randn(4, 2, requires_grad=True)\n"
        "loss = torch.tanh(x @ w).sum() + w.sum()\nloss.backward()\n",
    )
    status, out, err = run_command(capsys, "train.py")
    assert status == 0 and err == "" and "0 findings" in out, out + err


# DistributedDataParallel under torchrun (CPU, gloo) ------------------------------------------------

DDP_SCRIPT = """\
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 16), nn.Linear(16, 1)
        self.register_buffer("scale", torch.ones(16))

    def forward(self, x):
        h = torch.sigmoid(self.fc1(x))
        if "inplace" in sys.argv:
            h.mul_(2.0)  # WRITE
        return self.fc2(h * self.scale)


dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
net = Net()
model = DDP(net)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(4, 8) + rank).pow(2).mean()
    if "broadcast" in sys.argv:  # a second forward before the backward (torch 2.10, 2.11: PyTorch raises)
        if rank == 0:
            with torch.no_grad():
                net.scale.fill_(0.5)  # RANK0
        loss = loss + model(torch.randn(4, 8)).pow(2).mean()  # BROADCAST
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"rank {rank} done", flush=True)
dist.destroy_process_group()
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_torchrun(tmp_path, tool_env, *args):
    path = script(tmp_path, DDP_SCRIPT, "train_ddp.py")
    env = dict(tool_env, PYTHONPATH=str(Path(dg.__file__).parent.parent))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--master-addr",  # loopback, by address: a host whose name does not resolve hangs on its own name
            "127.0.0.1",
            "--master-port",
            str(free_port()),
            "--nproc-per-node",
            "2",
            "-m",
            "inplace_doctor",
            path.name,
            *args,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.e2e  # torchrun starts a process per rank
def test_ddp_under_torchrun_each_rank_reports_the_inplace_bug(tmp_path, tool_env):
    clean = run_torchrun(tmp_path, tool_env)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    # the ranks share torchrun's stdout: one rank's line may end after the other's next line began
    assert len(re.findall(r"^0 findings", clean.stdout, re.M)) == 2 and "rank 0 done" in clean.stdout, clean.stdout
    broken = run_torchrun(tmp_path, tool_env, "inplace")
    out = broken.stdout
    assert broken.returncode != 0, out  # a rank exits 1, and torchrun with it
    for rank in (0, 1):
        assert f"inplace_doctor (rank {rank} of 2): report" in out, out + broken.stderr
    assert out.count(f"written at: train_ddp.py:{marked_line(DDP_SCRIPT, '# WRITE')}") == 2, out
    assert "Traceback" not in out


@pytest.mark.e2e  # torchrun starts a process per rank
def test_ddp_buffer_broadcast_overwrites_a_saved_buffer_without_a_version_bump(tmp_path, tool_env):
    """Found out: DDP's broadcast (broadcast_buffers=True) copies rank 0's buffers into the
    others' at each forward, in place and without bumping their version: a buffer saved by the
    previous forward's graph is silently overwritten on rank 1. The diagnoser sees the copy."""
    run = run_torchrun(tmp_path, tool_env, "broadcast")
    out = run.stdout
    rank1 = out[out.index("inplace_doctor (rank 1 of 2): report") :]
    rank1 = rank1[: rank1.index(" silent\n") + 1] if " silent\n" in rank1 else rank1
    line = marked_line(DDP_SCRIPT, "# BROADCAST")
    assert (
        f"aten.copy_.default overwrote MulBackward0._saved_other\n  written at: train_ddp.py:{line} in "
        "DistributedDataParallel:" in rank1
    ), out
    # torch 2.12 and later copy without a version bump (silent); 2.10 and 2.11 bump it, and PyTorch raises
    silent = "version:    saved at 1, now 1" in rank1 or "check:      silent: the version counter did not see" in rank1
    caught = "check:      backward raises PyTorch's version-counter RuntimeError" in rank1
    assert silent if torch.__version__ >= "2.12" else caught, rank1
    assert "build DDP with broadcast_buffers=False" in rank1
    rank0 = out[out.index("inplace_doctor (rank 0 of 2): report") :]
    assert f"written at: train_ddp.py:{marked_line(DDP_SCRIPT, '# RANK0')}" in rank0  # its own write raises there


# torch.func under the diagnoser -----------------------------------------------------------------------


def func_results():
    """grad (two arguments, aux, a dict), grad_and_value, vjp and jacrev of small functions."""
    from torch.func import grad, grad_and_value, jacrev, vjp

    generator = torch.Generator().manual_seed(0)
    params = {"w": torch.randn(3, 2, generator=generator), "b": torch.randn(2, generator=generator)}
    x = torch.randn(4, 3, generator=generator)

    def loss(p, x):
        out = torch.tanh(x @ p["w"] + p["b"])
        return out.pow(2).mean(), out.detach()

    g, aux = grad(loss, argnums=(0, 1), has_aux=True)(params, x)
    gv = grad_and_value(lambda v: (v.sin() * v).sum())(x)
    out, pullback = vjp(lambda v: v.exp().cumsum(0), x)
    return [g[0]["w"], g[0]["b"], g[1], aux, *gv, out, *pullback(torch.ones_like(out)), jacrev(torch.sigmoid)(x[0])]


def test_torch_func_runs_under_plain_autograd_with_torch_func_s_values():
    expected = func_results()
    with dg.watch(quiet=True) as watched:
        found = func_results()
    assert watched.report.findings == [] and len(watched.report.passes) >= 4  # each gradient was examined
    assert all(torch.allclose(a, b, atol=1e-6) and a.shape == b.shape for a, b in zip(found, expected, strict=True))
    assert not any(t.requires_grad for t in found)  # as torch.func returns them


def test_a_tensor_saved_before_the_diagnoser_started_is_said_not_examined():
    """PyTorch refuses a tensor saved before watch() started (an earlier cell): its error goes on
    unchanged, and the report says what was not examined, with no count of checks that never ran."""
    w = torch.randn(3, requires_grad=True)
    h = w.sigmoid()
    h.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as raised:
        with dg.watch(quiet=True) as watched:
            h.sum().backward()
    assert type(raised.value) is RuntimeError and "inplace_doctor" not in str(raised.value)
    report = watched.report
    assert report.findings == [] and report.summary() == "0 findings"
    assert any(n.startswith("not examined: the saved tensor PyTorch's version check refused at") for n in report.notes)
