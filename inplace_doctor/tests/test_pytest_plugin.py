"""The pytest plugin (inplace_doctor.pytest_plugin, entry point pytest11), run by pytester: a
silent bug (a write through .data between a forward and its backward) passes without the plugin
and fails with it, its report naming the write's file and line; a clean test passes unchanged;
the marker switches it on for one test; PyTorch's own in-place error becomes the finding. Each run is a fresh
process, as a user's pytest run is (the plugin registered by its entry point)."""

import subprocess
import sys
from importlib.metadata import entry_points

import pytest

pytestmark = pytest.mark.e2e  # each run is a pytest process of its own, which imports torch

SILENT = """\
import pytest
import torch


def gradient():
    w = torch.ones(4, requires_grad=True)
    h = torch.sigmoid(w)
    h.data.mul_(2)  # WRITE
    h.sum().backward()
    return w.grad


{marker}
def test_silent():
    assert gradient().shape == (4,)


def test_clean():
    w = torch.ones(4, requires_grad=True)
    torch.sigmoid(w).mul(2).sum().backward()
    assert w.grad.shape == (4,)
"""

LOUD = """\
import torch


def test_loud():
    w = torch.ones(4, requires_grad=True)
    h = torch.sigmoid(w)
    h.mul_(2)  # WRITE
    h.sum().backward()
"""


def write_line(source: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if line.endswith("# WRITE"))


def test_the_plugin_is_registered_through_its_entry_point():
    plugins = {e.name: e.value for e in entry_points(group="pytest11")}
    assert plugins.get("inplace_doctor") == "inplace_doctor.pytest_plugin"


def test_a_silent_bug_passes_without_the_plugin_and_fails_with_it_at_its_line(pytester: pytest.Pytester):
    source = SILENT.format(marker="")
    pytester.makepyfile(test_silent=source)
    pytester.runpytest_subprocess().assert_outcomes(passed=2)
    result = pytester.runpytest_subprocess("--inplace-doctor")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "FAILED test_silent.py::test_silent" in out and "test_clean" not in out.split("short test summary")[1]
    result.stdout.fnmatch_lines(
        [
            "*inplace_doctor: 1 in-place write overwrote a tensor a backward pass saved",
            f"*written at: test_silent.py:{write_line(source)}: h.data.mul_(2)*",
            "*check:      silent: the version counter did not see the write*",
        ]
    )
    called_from = [line.strip() for line in out.splitlines() if "called from:" in line]
    assert called_from and all(line.startswith("called from: test_silent.py:") for line in called_from), out


def test_the_marker_switches_it_on_for_one_test(pytester: pytest.Pytester):
    pytester.makepyfile(test_silent=SILENT.format(marker="@pytest.mark.inplace_doctor"))
    result = pytester.runpytest_subprocess("--strict-markers")  # the plugin declares its marker
    result.assert_outcomes(passed=1, failed=1)
    assert "FAILED test_silent.py::test_silent" in result.stdout.str()


def test_pytorch_s_in_place_error_fails_as_the_finding_that_explains_it(pytester: pytest.Pytester):
    pytester.makepyfile(test_loud=LOUD)
    plain = pytester.runpytest_subprocess()
    plain.assert_outcomes(failed=1)
    assert "test_loud.py:" + str(write_line(LOUD)) not in plain.stdout.str()  # PyTorch names no line
    result = pytester.runpytest_subprocess("--inplace-doctor")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*backward 1 raised PyTorch's in-place error (chained as the cause); inplace_doctor found why:*",
            f"*written at: test_loud.py:{write_line(LOUD)}: h.mul_(2)*",
        ]
    )


def test_the_option_is_in_pytest_s_help(pytester: pytest.Pytester):
    pytester.runpytest_subprocess("--help").stdout.fnmatch_lines(["*--inplace-doctor*"])


def test_installed_it_imports_nothing_until_a_test_asks(tool_env, subprocess_timeout):
    """The entry point loads the plugin module in every pytest run: neither it nor the package's
    __init__ imports torch (bench/diagnose_overhead.py times the whole run)."""
    probe = (
        "import sys, inplace_doctor.pytest_plugin; "
        "print(sorted(m for m in sys.modules if m.startswith(('torch', 'inplace'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=tool_env, capture_output=True, text=True, timeout=subprocess_timeout
    )
    assert done.stdout.strip() == "['inplace_doctor', 'inplace_doctor.pytest_plugin']", done.stdout + done.stderr


def test_a_failure_shows_the_finding_first_and_none_of_the_diagnoser_s_frames(pytester: pytest.Pytester):
    pytester.makepyfile(test_loud=LOUD)
    out = pytester.runpytest_subprocess("--inplace-doctor").stdout.str()
    failure = out.split("_ test_loud _", 1)[1]
    assert failure.lstrip("_ \n").startswith("backward 1 raised PyTorch's in-place error"), failure
    assert "PyTorch's error, the cause:" in failure and "inplace_doctor/" not in failure, failure
    assert "During handling" not in failure and "(checked by inplace_doctor" not in failure
    full = pytester.runpytest_subprocess("--inplace-doctor", "--full-trace").stdout.str()
    assert "The above exception was the direct cause" in full  # asked for: the whole chain
