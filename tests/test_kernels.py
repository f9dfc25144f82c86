"""The build runs each page in a Jupyter kernel through nbclient (execbook.build): the outputs are
what ipykernel sends, display updates included; a cell that runs past its time fails its page;
the kernel has loaded execbook.kernel without touching the page's namespace or its execution
counts."""

import asyncio
import tempfile

import nbformat

from execbook import build


def run(*sources):
    """The notebook of these code cells, run in a kernel started as the build starts one, and
    (seconds, the build's explanation of a failure or None)."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])

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


def test_a_cell_that_runs_past_its_time_fails_its_page(monkeypatch):
    monkeypatch.setattr(build, "CELL_TIMEOUT_S", 2)
    notebook, (seconds, error) = run("import time\ntime.sleep(60)", "print('never')")
    assert error is not None and "timed out" in error
    assert seconds < 30 and notebook.cells[1].outputs == []


def test_an_untagged_error_stops_the_page_and_is_explained():
    notebook, (_, error) = run("1 / 0", "print('never')")
    assert error == "p (es, en): a cell the page shows failed: ZeroDivisionError: division by zero"
    assert notebook.cells[1].outputs == []
