"""The build runs each page in a Jupyter kernel through nbclient (execbook.build): the outputs are
what ipykernel sends, display updates included; a cell that runs past its time fails its page;
the kernel has loaded execbook.kernel without touching the page's namespace or its execution
counts."""

import asyncio
import re
import tempfile

import nbformat
import pytest

from execbook import build, cases, config, pages

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("in_tiny_book")]  # each test starts a kernel; some wait


def run(*sources, example=None):
    """The notebook of these code cells (the last one loading `example`, if given), run in a kernel
    started as the build starts one, and (seconds, the build's explanation of a failure or None)."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    if example:
        notebook.cells[-1].metadata[pages.EXAMPLE] = example
    notebook.metadata["source_map"] = [0, 10, 20][: len(sources)]  # each cell's fence, 0-based

    async def go():
        with tempfile.TemporaryDirectory(prefix="kernels-") as folder:
            kernel = asyncio.ensure_future(build.start_kernel(folder, []))
            return await build.run_page("p", notebook, kernel)

    return notebook, asyncio.run(go())


def test_a_display_update_changes_the_earlier_output_in_place():
    source = "from IPython.display import display\nh = display('first', display_id=True)\nh.update('second')"
    notebook, (_, error) = run(source)
    assert error is None
    assert [o["data"]["text/plain"] for o in notebook.cells[0].outputs] == ["'second'"]


def test_what_a_subprocess_writes_is_caught_and_streams_are_merged_stdout_first(monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST")  # ipykernel does not catch the file descriptors under pytest
    source = "import subprocess, sys\nprint('e', file=sys.stderr)\nprint('a')\n_ = subprocess.run(['echo', 'child'])"
    notebook, (_, error) = run(source)
    assert error is None
    assert [(o["name"], o["text"]) for o in notebook.cells[0].outputs] == [("stdout", "a\nchild\n"), ("stderr", "e\n")]


def test_the_kernel_loads_the_engine_and_leaves_the_namespace_and_the_counts_alone():
    notebook, (_, error) = run("import sys\nprint('execbook.kernel' in sys.modules, sorted(dir()))", "1 + 1")
    assert error is None
    loaded, names = notebook.cells[0].outputs[0]["text"].split(" ", 1)
    assert loaded == "True", "the kernel loaded execbook.kernel before the page"
    assert not {"execbook", "install", "load_ipython_extension"} & set(eval(names)), "no name of the engine is left"
    assert [c.execution_count for c in notebook.cells] == [1, 2]


def test_an_untagged_error_stops_the_page_and_is_explained():
    notebook, (_, error) = run("1 / 0", "print('never')")
    assert error == "p (en, es): a cell the page shows failed: ZeroDivisionError: division by zero"
    assert notebook.cells[1].outputs == []


def test_a_cell_that_runs_past_its_time_fails_its_page_naming_the_statement_it_was_running(monkeypatch):
    monkeypatch.setitem(vars(config), "CELL_TIMEOUT", 3)  # [tool.book] cell-timeout
    notebook, (seconds, error) = run("x = 1", "import time\nfor _ in range(100):\n    time.sleep(1)", "print('never')")
    assert error is not None and "still ran after 3 s" in error, error
    assert error.startswith("p (en, es) · docs/en/p.md:14\n"), error  # its fence is line 11 (source_map: 10)
    assert error.endswith("→ make it faster, or run the page alone: python -m execbook page p"), error
    assert seconds < 30 and notebook.cells[2].outputs == [], "the page stopped there"


def test_an_example_that_times_out_is_named_in_the_advice(monkeypatch):
    name = next(iter(cases.manifest()))
    monkeypatch.setitem(vars(config), "CELL_TIMEOUT", 2)  # [tool.book] cell-timeout
    _, (_, error) = run("import time\ntime.sleep(60)", example=name)
    assert error is not None and error.endswith(f"→ make it faster, or run it alone: python -m execbook run {name}")


def test_a_long_cell_says_which_statement_runs(monkeypatch, capsys):
    monkeypatch.setattr(build, "PROGRESS_S", 1)
    notebook, (_, error) = run("x = 1", "import time\ntime.sleep(3.5)\n")
    assert error is None
    assert re.search(r"^docs: p: docs/en/p\.md:13 still running after [1-3] s$", capsys.readouterr().out, re.M)


@pytest.mark.parametrize(
    "source,how",
    [
        ("import os\nos._exit(3)", "exited with status 3"),
        (  # as the system kills a process that takes too much memory: while a statement runs
            "import os, signal, threading, time\n"
            "threading.Timer(1, os.kill, (os.getpid(), signal.SIGKILL)).start(); time.sleep(10)",
            "killed by SIGKILL (out of memory?)",
        ),
    ],
)
def test_a_kernel_that_dies_names_the_statement_and_how_it_ended(source, how):
    notebook, (_, error) = run("x = 1", "y = 2\n" + source)
    assert error is not None and error.startswith("p (en, es) · docs/en/p.md:14\n"), error
    assert f"the kernel ended while this statement ran: {how}" in error
