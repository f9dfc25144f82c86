"""The notebook magic (inplace_doctor.notebook) in a real Jupyter kernel, run by nbclient: a cell
that starts with %%inplace_doctor reports what the command reports for the same code as a script,
each line named as IPython names it ("Cell In[3], line 5"), and runs in the notebook's namespace;
a cell whose code raises fails, the report first and its own traceback kept; %%inplace_doctor?
shows its help."""

import re
import subprocess
import sys

import nbclient
import nbformat
import pytest

pytestmark = pytest.mark.e2e  # each test runs a Jupyter kernel

BUGGY = """\
import torch
x = torch.randn(8, requires_grad=True)
h = torch.sigmoid(x)
h.mul_(2)
loss = h.sum()
loss.backward()"""


def execute(*cells: str) -> list:
    """Each code cell's outputs, executed in order in a fresh python3 kernel."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=300, allow_errors=True).execute()
    return [cell.outputs for cell in nb.cells]


def streams(outputs: list, name: str) -> str:
    return "".join(o.get("text", "") for o in outputs if o.output_type == "stream" and o.name == name)


def errors(outputs: list) -> list:
    return [o for o in outputs if o.output_type == "error"]


def plain(traceback: list[str]) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(traceback))  # IPython colours its tracebacks


@pytest.fixture(scope="module")
def notebook():
    return execute(
        "%load_ext inplace_doctor",
        "%%inplace_doctor\n" + BUGGY,
        "print(type(h).__name__, x.grad is None)",  # the cell's variables stay in the notebook
        "%%inplace_doctor --steps all\ny = torch.tanh(x)\ny.sum().backward()\nprint(x.grad.shape)",
        "%%inplace_doctor --bogus\npass",
        "def scale(t):\n    t.mul_(2)\n    return t",
        "%%inplace_doctor\nh = torch.sigmoid(x)\nscale(h)\nh.sum().backward()",
        "%%inplace_doctor\ny = torch.tanh(x)\ny.sum().backward()\nraise ValueError('bad batch')",
        "print(get_ipython().object_inspect_text('%%inplace_doctor'))\n"
        "print(get_ipython().object_inspect_text('%inplace_doctor'))",
        "print('after')",
    )


def test_a_cell_whose_backward_raises_fails_after_its_report_with_its_traceback(notebook):
    outputs = notebook[1]
    assert {o.output_type for o in outputs[:-1]} == {"stream"} and outputs[-1].output_type == "error", outputs
    assert "[1] aten.mul_.Tensor overwrote SigmoidBackward0._saved_result" in streams(outputs, "stdout")
    (error,) = errors(outputs)
    assert error.ename == "RuntimeError" and "modified by an inplace operation" in error.evalue
    shown = plain(error.traceback)
    assert "loss.backward()" in shown and "Cell In[2], line 7" in shown, shown  # the cell's own frame
    assert (
        "inplace_doctor/src/inplace_doctor/notebook.py" not in shown
        and "inplace_doctor/src/inplace_doctor/runner.py" not in shown
    ), shown


def test_a_cell_s_own_error_fails_it_with_its_traceback_after_the_report(notebook):
    outputs = notebook[7]
    assert "0 findings" in streams(outputs, "stdout")
    (error,) = errors(outputs)
    assert (error.ename, error.evalue) == ("ValueError", "bad batch")
    assert "Cell In[8], line 4" in plain(error.traceback)


def test_the_magic_has_help(notebook):
    out = streams(notebook[8], "stdout")
    assert out.count("%%inplace_doctor [--steps N|all]") == 2, out  # found as %%inplace_doctor and %inplace_doctor
    assert "a cell whose code raised then raises that error" in out


def test_a_finding_is_named_at_the_cell_s_lines_with_the_command_s_text(notebook, tmp_path):
    out = streams(notebook[1], "stdout")
    assert "  written at: Cell In[2], line 5: h.mul_(2)" in out, out
    assert "  saved at:   Cell In[2], line 4: h = torch.sigmoid(x)" in out, out
    script = tmp_path / "train.py"
    script.write_text("\n" + BUGGY + "\n", encoding="utf-8")  # line 1: where the magic's line is in the cell
    command = subprocess.run(
        [sys.executable, "-m", "inplace_doctor", "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert command.returncode == 1, command.stderr
    as_cell = re.sub(r"train\.py:(\d+)", r"Cell In[2], line \1", command.stdout).replace("train.py", "Cell In[2]")
    drop_first = lambda text: text.split("\n", 1)[1]  # noqa: E731 (who runs it: the command or the magic)
    assert drop_first(out) == drop_first(as_cell)
    assert out.startswith("%%inplace_doctor: running Cell In[2] until a backward raises or has a finding")


def test_the_cell_runs_in_the_notebook_s_namespace(notebook):
    assert streams(notebook[2], "stdout") == "Tensor True\n"  # stopped before backward, as the command does


def test_a_harmless_cell_runs_to_its_end_with_no_finding(notebook):
    out = streams(notebook[3], "stdout")
    assert "torch.Size([8])" in out and "0 findings" in out and "[1]" not in out, out


def test_bad_options_fail_the_cell_with_one_line(notebook):
    err = streams(notebook[4], "stderr")
    usage = "%%inplace_doctor [--steps N|all] (then the cell's code)"
    assert err == f"UsageError: %%inplace_doctor: unknown option '--bogus'; usage: {usage}\n"
    assert streams(notebook[4], "stdout") == ""


def test_a_helper_from_an_earlier_cell_is_named_at_that_cell_s_line(notebook):
    out = streams(notebook[6], "stdout")
    assert "  written at: Cell In[6], line 2: t.mul_(2)" in out, out
    assert "  called from: Cell In[7], line 3: scale(h)" in out, out
