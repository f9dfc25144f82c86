"""The pytest plugin (entry point ``pytest11``): ``pytest --inplace-doctor`` runs every test under
``watch()``; ``@pytest.mark.inplace_doctor`` runs one test so.

A test whose backward passes meet an overwritten saved tensor fails, loud bug or silent one, and
its report is the finding: the write's file and line, the saved tensor, the fix. A test where
PyTorch raised its in-place error fails with that finding instead of PyTorch's message, which
names no line. Clean tests pass unchanged. Only the test's own call is watched, not its fixtures.
"""

import pytest

from .findings import Finding
from .watch import watch

OPTION = "--inplace-doctor"
MARKER = "inplace_doctor"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("inplace-doctor", "in-place writes that break backward passes")
    group.addoption(
        OPTION,
        action="store_true",
        dest="inplace_doctor",
        help="run every test under inplace_doctor.watch(): a test whose backward meets a saved tensor "
        "overwritten in place fails, naming the write's file and line",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}: run this test under inplace_doctor.watch(), as {OPTION} runs every test"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> object:
    if not (item.config.getoption("inplace_doctor") or item.get_closest_marker(MARKER)):
        return (yield)
    watching = watch(quiet=True)
    with watching:  # PyTorch's in-place error leaves it as the finding that explains it
        result = yield
    findings = [f for f in watching.report.findings if not f.left]  # a graph no backward read: no wrong gradient
    if findings:
        pytest.fail(failure_text(findings), pytrace=False)
    return result


def failure_text(findings: list[Finding]) -> str:
    count = f"{len(findings)} in-place write{'' if len(findings) == 1 else 's'}"
    described = "\n\n".join(f"[{i}] {finding.describe()}" for i, finding in enumerate(findings, 1))
    return f"inplace_doctor: {count} overwrote a tensor a backward pass saved\n{described}"
