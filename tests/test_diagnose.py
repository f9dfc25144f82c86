"""minigpt.diagnose: the runtime diagnosis over a battery of harmful and safe in-place writes,
the static scanner, the `minigpt diagnose` command, and the probes of the private PyTorch APIs
the diagnosis relies on (minigpt/diagnose/torch_private.py).

Expected lines are never written down: each battery model marks its lines with comments
(``# WRITE``: the in-place write; ``# SAVE``: where the overwritten tensor was saved), and the
tests look the marks up in the source. The same goes for the lines of minigpt/model.py.
Where the battery says what PyTorch's version check does, the test also runs a real backward.
"""

import functools
import inspect
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd.graph import saved_tensors_hooks

import minigpt.model
from minigpt import cli
from minigpt import diagnose as dg
from minigpt.diagnose import torch_private
from minigpt.data import probe_batch
from minigpt.model import Block, LayerNormKeepingInput
from minigpt.train import build_model, model_config

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
    "relu_ after tanh": (ReluAfterTanh, "TanhBackward0", "_saved_result", dg.RAISES, True),
    "in-place dropout on softmax": (DropoutOnSoftmax, "SoftmaxBackward0", "_saved_result", dg.RAISES, True),
    ".data write after tanh": (DataWriteAfterTanh, "TanhBackward0", "_saved_result", dg.COUNTER_BLIND, True),
    "identity hooks, then relu_": (HooksThenRelu, "TanhBackward0", "_saved_result", dg.HOOKS_SKIP_CHECK, True),
    "ctx.x kept, then add_": (CtxKeptThenAdd, "SquareBackward", "ctx.x", dg.CTX_UNCHECKED, True),
    "numpy write after tanh": (NumpyWriteAfterTanh, "TanhBackward0", "_saved_result", dg.UNSEEN_WRITE, True),
    "write to a sibling view": (SiblingViewWrite, "SinBackward0", "_saved_self", dg.RAISES, False),
}


# Safe (facts section 4): an in-place write, but no backward node saved what it overwrote.

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
    if check == dg.UNSEEN_WRITE:
        assert finding.write is None
    else:
        assert same_file(finding.write.location.path, __file__)
        assert finding.write.location.line == line_of(case, "# WRITE")
        assert re.fullmatch(r"aten\.\w+_\.\w+", finding.write.name), finding.write.name
    if check == dg.COUNTER_BLIND:
        assert finding.saved_version == finding.current_version
    elif check != dg.UNSEEN_WRITE:
        assert finding.saved_version < finding.current_version
    # The check the report names is the one PyTorch applies.
    assert backward_raises(case) == (check == dg.RAISES)


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


# The mini-GPT ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gpt_report(data):
    """diagnose(...) of the mini-GPT on the probe batch, once per switch set."""
    cache = {}

    def get(**switches):
        key = tuple(sorted(switches.items()))
        if key not in cache:
            model = build_model(model_config(data, **switches), 0)
            cache[key] = dg.diagnose(model, *probe_batch(data))
        return cache[key]

    return get


RESIDUAL_LINES = ("h.add_(self.attn(self.ln1(h)))", "h.add_(self.ffn(self.ln2(h)))")


@pytest.mark.parametrize("bypass, node, attribute, check", [
    ("none", "NativeLayerNormBackward0", "_saved_input", dg.RAISES),
    ("hooks", "NativeLayerNormBackward0", "_saved_input", dg.HOOKS_SKIP_CHECK),
    ("ctx", LayerNormKeepingInput.__name__ + "Backward", "ctx.x", dg.CTX_UNCHECKED),
])
def test_inplace_residual_is_found_at_each_h_add_line(gpt_report, data, bypass, node, attribute, check):
    report = gpt_report(inplace=True, bypass=bypass)
    n_layer = model_config(data).n_layer
    assert len(report.findings) == 2 * n_layer, str(report)
    # In forward order: block 0's ln1 input, block 0's ln2 input, block 1's ln1 input, ...
    for k, finding in enumerate(report.findings):
        block, which = divmod(k, 2)
        assert (finding.node, finding.attribute, finding.check) == (node, attribute, check)
        assert finding.write.name == "aten.add_.Tensor"
        assert same_file(finding.write.location.path, minigpt.model.__file__)
        assert finding.write.location.line == line_of(Block.forward, RESIDUAL_LINES[which])
        assert finding.write.location.module == f"blocks.{block}"
        assert finding.saved_at.module == f"blocks.{block}.ln{which + 1}"
        # h is saved at version k and written once more by every later residual add.
        assert (finding.saved_version, finding.current_version) == (k, 2 * n_layer)
        assert len(finding.later_writes) == 2 * n_layer - 1 - k
    summary = str(report).splitlines()[-1]
    caught = 2 * n_layer if check == dg.RAISES else 0
    assert SUMMARY.match(summary).groups() == (str(2 * n_layer), str(caught), str(2 * n_layer - caught))


def test_inplace_residual_report_names_op_line_node_and_versions(gpt_report):
    text = str(gpt_report(inplace=True))
    line = line_of(Block.forward, RESIDUAL_LINES[0])
    assert "aten.add_.Tensor overwrote NativeLayerNormBackward0._saved_input" in text
    assert re.search(rf"written at: \S*minigpt/model\.py:{line} in blocks\.0: h\.add_\(self\.attn", text)
    assert "version:    saved at 0, now" in text


def test_data_bypass_cuts_the_blocks_out_of_the_graph(gpt_report, data):
    """The .data residual leaves no overwritten tensor in the loss's graph: it removes the blocks
    from the graph altogether, which the report notes as parameters without a gradient."""
    report = gpt_report(inplace=True, bypass="data")
    assert report.findings == [] and report.writes == 2 * model_config(data).n_layer
    model = build_model(model_config(data), 0)
    assert report.unreached == [name for name, _ in model.named_parameters() if name.startswith("blocks.")]
    assert "are not in the backward graph" in str(report)


@pytest.mark.parametrize("switches", [{}, {"relu_inplace": True}, {"exp_inplace": True},
                                      {"relu_inplace": True, "exp_inplace": True}])
def test_control_and_safe_switches_give_no_finding(gpt_report, switches):
    report = gpt_report(**switches)
    assert report.findings == [] and report.unreached == [], str(report)
    assert report.saved > 0


def test_safe_switches_do_write_in_place(gpt_report, data):
    n_layer = model_config(data).n_layer
    assert gpt_report().writes == 0
    assert gpt_report(relu_inplace=True).writes == n_layer
    assert gpt_report(exp_inplace=True).writes == n_layer


def test_nothing_requiring_grad_gives_no_finding(data):
    model = build_model(model_config(data, inplace=True), 0).requires_grad_(False)
    report = dg.diagnose(model, *probe_batch(data))
    assert report.findings == [] and report.saved == 0 and report.nodes == 0
    assert report.writes == 2 * model_config(data).n_layer  # the in-place residual still ran


# The diagnosis changes nothing ---------------------------------------------------------------------

@pytest.mark.parametrize("switches", [{}, {"inplace": True}, {"inplace": True, "bypass": "hooks"}])
def test_diagnosis_leaves_outputs_and_backward_as_they_were(data, switches):
    x, y = probe_batch(data)
    plain = build_model(model_config(data, **switches), 0)
    logits, loss = plain(x, y)
    try:
        loss.backward()
        expected = {name: p.grad for name, p in plain.named_parameters()}
    except RuntimeError as exc:
        expected = exc

    diagnosed = build_model(model_config(data, **switches), 0)
    kept = {}

    def forward():
        kept["logits"], kept["loss"] = diagnosed(x, y)
        return kept["loss"]

    dg.diagnose(forward)
    assert all(p.grad is None for p in diagnosed.parameters())  # no backward ran
    assert torch.equal(kept["logits"], logits) and torch.equal(kept["loss"], loss)
    if isinstance(expected, RuntimeError):  # our unpack hook checks what our pack hook hid
        with pytest.raises(RuntimeError, match=INPLACE_ERROR):
            kept["loss"].backward()
    else:
        kept["loss"].backward()
        for name, p in diagnosed.named_parameters():
            assert torch.equal(p.grad, expected[name]), name


def test_a_callable_is_diagnosed_like_the_model(data, gpt_report):
    model = build_model(model_config(data, inplace=True), 0)
    x, y = probe_batch(data)
    report = dg.diagnose(lambda: model(x, y)[1])
    expected = gpt_report(inplace=True)
    as_tuples = lambda r: [(f.node, f.attribute, f.write.location.line, f.saved_version) for f in r.findings]
    assert as_tuples(report) == as_tuples(expected)
    # no model given: the first module called names the tree, its class for a root
    assert report.findings[0].write.location.module == "GPT.blocks.0 (Block)"


# The static scanner --------------------------------------------------------------------------------

def test_scanner_lists_every_inplace_site_of_model_py():
    found = dg.find_inplace_calls(minigpt.model)
    lines = Path(minigpt.model.__file__).read_text().splitlines()
    by_kind = {}
    for c in found:
        assert same_file(c.path, minigpt.model.__file__)
        assert c.code == lines[c.line - 1].strip()
        by_kind.setdefault(c.kind, set()).add(c.line)
    residual = {line_of(Block.forward, text) for text in RESIDUAL_LINES}
    through_data = {line_of(Block.forward, f"h.data.add_(self.{f}(") for f in ("attn", "ffn")}
    assert by_kind["in-place call add_"] == residual and len(residual) == 2
    assert by_kind["write through .data (add_)"] == through_data and len(through_data) == 2
    assert by_kind["in-place call relu_"] == {line_of(minigpt.model.FeedForward.forward, "F.relu_(")}
    assert by_kind["in-place call exp_"] == {line_of(minigpt.model.CausalSelfAttention.softmax, "shifted.exp_()")}
    assert found == dg.find_inplace_calls(minigpt.model.__file__) == dg.find_inplace_calls([Path(minigpt.model.__file__)])


SCANNED = '''\
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
'''
SCANNED_KINDS = {"# AUG": "augmented assignment", "# INDEX": "index assignment",
                 "# DATA-SET": "write through .data", "# DATA-INDEX": "write through .data",
                 "# DATA-CALL": "write through .data (mul_)", "# CALL": "in-place call mul_",
                 "# FUNCTION": "in-place call relu_", "# INPLACE": "inplace= argument", "# OUT": "out= argument"}


def test_scanner_kinds_and_what_it_leaves_alone(tmp_path):
    (tmp_path / "pkg").mkdir()
    path = tmp_path / "pkg" / "code.py"
    path.write_text(SCANNED)
    lines = SCANNED.splitlines()
    expected = {(next(i for i, line in enumerate(lines, 1) if mark in line), kind) for mark, kind in SCANNED_KINDS.items()}
    assert {(c.line, c.kind) for c in dg.find_inplace_calls(path)} == expected
    assert dg.find_inplace_calls(tmp_path) == dg.find_inplace_calls(path)  # directories are walked
    assert str(dg.find_inplace_calls(path)[0]).endswith(": augmented assignment: x += y  # AUG")


def test_scanner_refuses_a_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="no-such.py"):
        dg.find_inplace_calls(tmp_path / "no-such.py")


# The command line ----------------------------------------------------------------------------------

def summary_count(out):
    match = SUMMARY.match(out.strip().splitlines()[-1])
    assert match, out
    return int(match.group(1))


@pytest.mark.parametrize("args, switches", [
    (["inplace=true"], {"inplace": True}),
    (["inplace=true", "bypass=hooks", "seed=3"], {"inplace": True, "bypass": "hooks"}),
    (["relu_inplace=true", "exp_inplace=true"], {"relu_inplace": True, "exp_inplace": True}),
    ([], {}),
])
def test_cli_diagnose_prints_the_report_and_exits_0(capsys, data, gpt_report, args, switches):
    assert cli.main(["diagnose", *args]) == 0
    out = capsys.readouterr().out
    assert summary_count(out) == len(gpt_report(**switches).findings)
    for finding in gpt_report(**switches).findings:
        assert f"overwrote {finding.node}.{finding.attribute}" in out


@pytest.mark.parametrize("args, message", [
    (["bypass=hooks"], "inplace=true"),
    (["steps=3"], "unknown key 'steps' for diagnose"),
    (["inplace=perhaps"], "inplace='perhaps'"),
    (["now"], "'now'"),
])
def test_cli_diagnose_bad_input_is_one_line_and_exit_2(capsys, args, message):
    assert cli.main(["diagnose", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("minigpt: error: ") and captured.err.count("\n") == 1
    assert message in captured.err


def test_help_lists_the_diagnose_keys(capsys):
    assert cli.main(["help"]) == 0
    out = capsys.readouterr().out
    assert "\ndiagnose keys:" in out
    for key in cli.DIAGNOSE_KEYS:
        assert key in cli.TRAIN_KEYS and cli.DIAGNOSE_KEYS[key] == cli.TRAIN_KEYS[key]


def test_just_phase_25_diagnose(tmp_path, repo, tool_env, gpt_report, subprocess_timeout):
    just = shutil.which("just", path=tool_env["PATH"])
    assert just, "`just` is not installed: install the test extras (pip install -e .[test])"
    shutil.copy(repo / "justfile", tmp_path / "justfile")
    proc = subprocess.run([just, "phase-25-diagnose", "inplace=true", "bypass=ctx"], cwd=tmp_path, env=tool_env,
                          capture_output=True, text=True, timeout=subprocess_timeout)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert summary_count(proc.stdout) == len(gpt_report(inplace=True, bypass="ctx").findings)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["justfile"]  # it writes nothing


# The private PyTorch APIs --------------------------------------------------------------------------

@pytest.mark.parametrize("name", torch_private.PROBES)
def test_probe_holds_on_this_torch(name):
    statement, check = torch_private.PROBES[name]
    holds, seen = check()
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
    "diagnose-api:custom-function-node": ("torch.autograd.function", "BackwardCFunction"),
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
    r"|\._schema\b|\._base\b|\._is_view\b|untyped_storage|data_ptr")


def test_only_torch_private_mentions_private_torch_apis():
    private = Path(torch_private.__file__)
    others = sorted(p for p in private.parent.glob("*.py") if p != private)
    assert {p.name for p in others} >= {"__init__.py", "scan.py"}
    mentions = {p.name: sorted(set(PRIVATE_TORCH_API.findall(p.read_text(encoding="utf-8")))) for p in others}
    assert {name: found for name, found in mentions.items() if found} == {}
    assert len(set(PRIVATE_TORCH_API.findall(private.read_text(encoding="utf-8")))) >= 10  # the pattern works


def test_torch_private_imports_no_model_code(tool_env, subprocess_timeout):
    """drift/ imports the probes before anything runs: importing them must stay light."""
    code = ("import sys, minigpt.diagnose.torch_private; "
            "print(sorted(m for m in sys.modules if m.startswith('minigpt')))")
    proc = subprocess.run([sys.executable, "-c", code], env=tool_env, capture_output=True, text=True,
                          timeout=subprocess_timeout)
    assert proc.returncode == 0, proc.stderr
    assert "minigpt.train" not in proc.stdout and "minigpt.data" not in proc.stdout, proc.stdout


def test_display_path_is_relative_to_the_working_directory_or_to_sys_path(tmp_path, monkeypatch):
    from minigpt.diagnose.location import display_path

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
