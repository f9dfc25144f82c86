"""The diagnoser on the course's own code: the mini-GPT (`diagnose(model, x, y)`, the
`minigpt diagnose` command and `just phase-25-diagnose`), the scanner on minigpt/model.py, and
`minigpt diagnose SCRIPT.py` handing a script to inplace_doctor's command. The diagnoser's own
tests live with it, in inplace_doctor/tests/.
"""

import inspect
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
import torch

import inplace_doctor as dg
import minigpt.model
from minigpt import cli
from minigpt.data import probe_batch
from minigpt.model import Block, LayerNormKeepingInput
from minigpt.train import build_model, model_config

INPLACE_ERROR = "modified by an inplace operation"
SUMMARY = re.compile(r"^(\d+) findings?: (\d+) caught by PyTorch's version check at backward, (\d+) silent$")
TRAIN = """\
import sys
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
for step in range(int(sys.argv[1])):
    print("step", step, flush=True)
    model(torch.randn(4, 8)).pow(2).mean().backward()
"""


def line_of(obj, mark):
    """The one source line of obj (a function or class) containing mark."""
    lines, start = inspect.getsourcelines(obj)
    hits = [start + i for i, text in enumerate(lines) if mark in text]
    assert len(hits) == 1, f"{mark!r} should occur once in {obj.__qualname__}, found at {hits}"
    return hits[0]


def same_file(a, b):
    return Path(a).resolve() == Path(b).resolve()


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


@pytest.mark.parametrize(
    "bypass, node, attribute, check",
    [
        ("none", "NativeLayerNormBackward0", "_saved_input", dg.Check.RAISES),
        ("hooks", "NativeLayerNormBackward0", "_saved_input", dg.Check.HOOKS_SKIP_CHECK),
        ("ctx", LayerNormKeepingInput.__name__ + "Backward", "ctx.x", dg.Check.CTX_UNCHECKED),
    ],
)
def test_inplace_residual_is_found_at_each_h_add_line(gpt_report, data, bypass, node, attribute, check):
    report = gpt_report(inplace=True, bypass=bypass)
    n_layer = model_config(data).n_layer
    # One finding per residual line, met in block 0 first and again in every later block.
    assert len(report.findings) == 2, str(report)
    for which, finding in enumerate(report.findings):
        assert (finding.node, finding.attribute, finding.check) == (node, attribute, check)
        assert finding.write.name == "aten.add_.Tensor"
        assert same_file(finding.write.location.path, minigpt.model.__file__)
        assert finding.write.location.line == line_of(Block.forward, RESIDUAL_LINES[which])
        assert finding.write.location.module == "blocks.0"
        assert finding.saved_at.module == f"blocks.0.ln{which + 1}"
        assert finding.modules == [f"blocks.{block}" for block in range(1, n_layer)]
        assert finding.repeats == n_layer - 1
        # h is saved at version `which` and written once more by every later residual add.
        assert (finding.saved_version, finding.current_version) == (which, 2 * n_layer)
        assert len(finding.later_writes) == 2 * n_layer - 1 - which
    summary = str(report).splitlines()[-1]
    caught = 2 if check == dg.Check.RAISES else 0
    assert SUMMARY.match(summary).groups() == ("2", str(caught), str(2 - caught))


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


@pytest.mark.parametrize(
    "switches", [{}, {"relu_inplace": True}, {"exp_inplace": True}, {"relu_inplace": True, "exp_inplace": True}]
)
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

    def as_tuples(r):
        return [(f.node, f.attribute, f.write.location.line, f.saved_version) for f in r.findings]

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
    source, start = inspect.getsourcelines(Block.forward)
    into_clone = {start + i for i, text in enumerate(source) if "h.add_(update)" in text}  # fix 2, both orders
    through_data = {line_of(Block.forward, f"h.data.add_(self.{f}(") for f in ("attn", "ffn")}
    assert by_kind["in-place call add_"] == residual | into_clone and len(residual) == 2 and len(into_clone) == 4
    assert by_kind["write through .data (add_)"] == through_data and len(through_data) == 2
    assert by_kind["in-place call relu_"] == {line_of(minigpt.model.FeedForward.forward, "F.relu_(")}
    assert by_kind["in-place call exp_"] == {line_of(minigpt.model.CausalSelfAttention.softmax, "shifted.exp_()")}
    assert (
        found == dg.find_inplace_calls(minigpt.model.__file__) == dg.find_inplace_calls([Path(minigpt.model.__file__)])
    )


# The command line ----------------------------------------------------------------------------------


def summary_count(out):
    last = out.strip().splitlines()[-1]
    if last == "0 findings":
        return 0
    match = SUMMARY.match(last)
    assert match, out
    return int(match.group(1))


@pytest.mark.parametrize(
    "args, switches",
    [
        (["inplace=true"], {"inplace": True}),
        (["inplace=true", "bypass=hooks", "seed=3"], {"inplace": True, "bypass": "hooks"}),
        (["relu_inplace=true", "exp_inplace=true"], {"relu_inplace": True, "exp_inplace": True}),
        ([], {}),
    ],
)
def test_cli_diagnose_prints_the_report_and_exits_0(capsys, data, gpt_report, args, switches):
    assert cli.main(["diagnose", *args]) == 0
    out = capsys.readouterr().out
    assert summary_count(out) == len(gpt_report(**switches).findings)
    for finding in gpt_report(**switches).findings:
        assert f"overwrote {finding.node}.{finding.attribute}" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["bypass=hooks"], "inplace=true"),
        (["steps=3"], "unknown key 'steps' for diagnose"),
        (["inplace=perhaps"], "inplace='perhaps'"),
        (["now"], "'now'"),
    ],
)
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
    proc = subprocess.run(
        [just, "phase-25-diagnose", "inplace=true", "bypass=ctx"],
        cwd=tmp_path,
        env=tool_env,
        capture_output=True,
        text=True,
        timeout=subprocess_timeout,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert summary_count(proc.stdout) == len(gpt_report(inplace=True, bypass="ctx").findings)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["justfile"]  # it writes nothing


def test_the_recorder_keeps_digests_not_copies(data):
    """Every saved tensor is kept as an alias of the program's own (same memory), and what the
    recorder adds, its digests, is a tiny fraction of the saved activations."""
    from inplace_doctor.session import Session

    model = build_model(model_config(data), 0)
    session = Session(model)
    with session:
        loss = model(*probe_batch(data))[1]
        records = list(session.recorder.records)
        aliases = all(r.tensor.data_ptr() == r.memory.storage + r.memory.offset for r in records if r.memory)
        saved = sum(r.tensor.numel() * r.tensor.element_size() for r in records)
        held = session.recorder.held_bytes()
    assert records and aliases
    assert 0 < held < saved / 100, (held, saved)
    del loss


def test_a_module_of_ours_with_an_inplace_flag_is_not_taken_for_torchs_inplace_modules(gpt_report):
    """The mini-GPT's Block keeps config.inplace as .inplace, but writes in its own code: the fix
    is at the write, not at the line that built the block."""
    for finding in gpt_report(inplace=True).findings:
        assert finding.write.location.inplace_class == "" and finding.write.location.built is None
        assert finding.fix.startswith("use the out-of-place add: h = h.add(")


def test_cli_entry_point_hands_a_script_to_the_command(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    assert cli.main(["diagnose", "--steps", "2", "train.py", "4"]) == 0
    out = capsys.readouterr().out
    assert "step 1" in out and "step 2" not in out and "0 findings" in out


def test_the_course_depends_on_this_checkout_s_diagnoser():
    root = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert f"inplace-doctor=={dg.__version__}" in root["project"]["dependencies"]
