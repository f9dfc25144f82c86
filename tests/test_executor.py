"""The build's executor (execbook.executor): a page's cells run in a child of a warm process, in an
IPython shell whose outputs are those a Jupyter kernel would send."""

import os
import signal
import time
from pathlib import Path

import nbformat
import pytest

from execbook import executor


def run(cells, cwd):
    """In a child of the warm process: the notebook of these (source, tags) cells, run; returns
    (its code cells' outputs and counts, the error's ename and evalue or None)."""
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source, metadata={"tags": tags}) for source, tags in cells]
    )
    failed = executor.run_notebook(notebook, cwd)
    shown = [(c.execution_count, [dict(o) for o in c.outputs]) for c in notebook.cells]
    return shown, None if failed is None else (failed.ename, failed.evalue, len(failed.traceback))


@pytest.fixture(scope="module")
def warm():
    with executor.Warm(["json"]) as pool:
        yield pool


def outputs_of(warm, tmp_path, *cells):
    return warm.submit(run, [(c, []) if isinstance(c, str) else c for c in cells], str(tmp_path)).result(timeout=60)


def test_what_a_cell_prints_is_one_output_per_stream_stdout_first(warm, tmp_path):
    (_, outputs), *_ = outputs_of(warm, tmp_path, "import sys\nprint('a')\nprint('e', file=sys.stderr)\nprint('b')")[0]
    assert outputs == [
        {"output_type": "stream", "name": "stdout", "text": "a\nb\n"},
        {"output_type": "stream", "name": "stderr", "text": "e\n"},
    ]


def test_a_display_flushes_what_was_printed_before_it_and_the_value_is_the_result(warm, tmp_path):
    cells, error = outputs_of(
        warm,
        tmp_path,
        "x = 1",
        "from IPython.display import display, HTML\nprint('before')\ndisplay(HTML('<b>x</b>'))\nprint('after')\n41 + x",
    )
    assert error is None
    (first, nothing), (second, outputs) = cells
    assert (first, second, nothing) == (1, 2, [])
    assert [o["output_type"] for o in outputs] == ["stream", "display_data", "stream", "execute_result"]
    assert outputs[1]["data"]["text/html"] == "<b>x</b>"
    assert outputs[3]["data"] == {"text/plain": "42"} and outputs[3]["execution_count"] == 2


def test_bytes_of_an_image_are_sent_as_base64_as_a_kernel_does(warm, tmp_path):
    png = "from IPython.display import Image, display\ndisplay(Image(data=b'\\x89PNG\\r\\n\\x1a\\n' + bytes(8)))"
    (_, outputs), *_ = outputs_of(warm, tmp_path, png)[0]
    assert outputs[0]["data"]["image/png"] == "iVBORw0KGgoAAAAAAAAAAA=="


def test_what_subprocesses_and_the_file_descriptors_write_is_caught(warm, tmp_path):
    source = "import os, subprocess\nos.write(1, b'fd one\\n')\n_ = subprocess.run(['echo', 'child'])"
    (_, outputs), *_ = outputs_of(warm, tmp_path, source)[0]
    assert outputs == [{"output_type": "stream", "name": "stdout", "text": "fd one\nchild\n"}]


def test_the_cells_run_from_the_folder_given(warm, tmp_path):
    (_, outputs), *_ = outputs_of(warm, tmp_path, "import os\nprint(os.getcwd())")[0]
    assert outputs[0]["text"] == f"{os.path.realpath(tmp_path)}\n"


def test_a_tagged_error_is_shown_and_the_page_goes_on_an_untagged_one_stops_it(warm, tmp_path):
    cells, error = outputs_of(
        warm, tmp_path, ("1 / 0", ["raises-exception"]), "print('next')", "undefined_name", "print('never')"
    )
    assert [o["output_type"] for o in cells[0][1]] == ["error"]
    assert cells[0][1][0]["ename"] == "ZeroDivisionError"
    assert cells[1][1] == [{"output_type": "stream", "name": "stdout", "text": "next\n"}]
    assert error[:2] == ("NameError", "name 'undefined_name' is not defined") and error[2] > 0
    assert cells[3] == (None, [])  # not run


def test_each_task_starts_from_the_warm_process_as_it_was(warm, tmp_path):
    first = outputs_of(warm, tmp_path, "import json\njson.marker = 'set'\nprint(hasattr(json, 'marker'))")
    second = outputs_of(warm, tmp_path, "import json\nprint(hasattr(json, 'marker'))")
    assert first[0][0][1][0]["text"] == "True\n" and second[0][0][1][0]["text"] == "False\n"


def die():
    os.kill(os.getpid(), signal.SIGKILL)


def raise_it():
    raise ValueError("broken hook")


def sleep(seconds):
    time.sleep(seconds)
    return seconds


def test_a_task_that_dies_or_raises_fails_its_future_and_the_next_one_still_runs(warm):
    with pytest.raises(executor.TaskFailed, match="killed by signal SIGKILL"):
        warm.submit(die).result(timeout=60)
    with pytest.raises(executor.TaskFailed, match="ValueError: broken hook"):
        warm.submit(raise_it).result(timeout=60)
    assert warm.submit(sleep, 0).result(timeout=60) == 0


def meet(folder, me, other):
    """Say this task is here, then wait (at most 20 s) for the other: True if it came meanwhile."""
    (folder / me).touch()
    waited = 0.0
    while not (folder / other).exists() and waited < 20:
        time.sleep(0.05)
        waited += 0.05
    return (folder / other).exists()


def test_tasks_run_side_by_side(warm, tmp_path):
    futures = [warm.submit(meet, tmp_path, me, other) for me, other in (("a", "b"), ("b", "a"))]
    assert [f.result(timeout=60) for f in futures] == [True, True], "one task waited for the other to end"


def test_a_task_past_its_time_is_stopped(monkeypatch):
    monkeypatch.setattr(executor, "TIMEOUT_S", 0.5)  # the warm process is forked with it
    monkeypatch.setattr(executor, "POLL_S", 0.1)
    with executor.Warm() as pool, pytest.raises(executor.TaskFailed, match="ran for more than 0.5 s"):
        pool.submit(sleep, 30).result(timeout=20)


def sleep_in(folder, seconds):
    (folder / "pid").write_text(str(os.getpid()))
    time.sleep(seconds)


def test_leaving_stops_the_warm_process_and_its_children(tmp_path):
    with executor.Warm() as pool:
        pool.submit(sleep_in, tmp_path, 30)
        while not (tmp_path / "pid").exists():
            time.sleep(0.05)
        process = pool._process
    assert not process.is_alive()
    status = Path(f"/proc/{(tmp_path / 'pid').read_text()}/status")
    time.sleep(0.2)
    assert not status.exists() or "State:\tZ" in status.read_text()  # gone, or dead and not yet reaped


def test_a_task_given_once_the_warm_process_is_gone_fails_in_one_line():
    with executor.Warm() as pool:
        pool._process.kill()
        pool._process.join()
        pool._reader.join(10)
        with pytest.raises(executor.TaskFailed, match="warm process stopped"):
            pool.submit(sleep, 0).result(timeout=20)
