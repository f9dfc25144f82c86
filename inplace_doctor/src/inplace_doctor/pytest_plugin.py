"""The pytest plugin (entry point ``pytest11``): ``pytest --inplace-doctor`` runs every test under
``watch()``; ``@pytest.mark.inplace_doctor`` runs one test so.

A test whose backward passes meet an overwritten saved tensor fails, loud bug or silent one, and
its report is the finding: the write's file and line, the saved tensor, the fix. A test where
PyTorch raised its in-place error fails with that finding first, PyTorch's own message as its
cause and the test's own frames (``--full-trace``: the whole chained traceback). Clean tests pass
unchanged. Only the test's own call is watched, not its fixtures. Torch is imported when a test
asks for the diagnoser, not before (the package's ``__init__`` says why).
"""

import pytest

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
    from .failure import user_traceback
    from .findings import count
    from .watching import Explained, watch

    watching = watch(quiet=True)
    explained: Explained | None = None
    try:
        with watching:
            result = yield
    except Explained as error:  # PyTorch's in-place error, and the finding that explains it
        if item.config.getoption("fulltrace"):
            raise
        explained = error
    if explained is not None:  # failed outside the except block: no "during handling" chain
        cause = explained.__cause__
        assert cause is not None
        pytest.fail(f"{explained}\n\nPyTorch's error, the cause:\n{user_traceback(cause)}", pytrace=False)
    findings = [f for f in watching.report.findings if not f.left]  # a graph no backward read: no wrong gradient
    if findings:
        described = "\n\n".join(f"[{i}] {finding.describe()}" for i, finding in enumerate(findings, 1))
        writes = count(len(findings), "in-place write")
        pytest.fail(f"inplace_doctor: {writes} overwrote a tensor a backward pass saved\n{described}", pytrace=False)
    return result
