"""Execute the pages' notebooks in processes forked from a warm one (what the build runs them in).

A Jupyter kernel per page meant a fresh Python per page, importing torch, IPython and the book's
packages again: about two CPU-seconds a page before its first cell, on a machine that builds
with two cores. Here one warm process (`Warm`) imports them once; each task (a page, the shared
experiments) runs in a child forked from it, which finds them imported and, being a fork, leaves
the warm process as it was for the next one.

A page runs in an IPython shell in that child (`run_notebook`), which makes the cells' outputs
what a Jupyter kernel would send (ipykernel's, whose behaviour this follows): what a cell prints
goes out as one stream output per stream, flushed before a display, a result or an error, and
when the cell ends (stdout first); what extension code and subprocesses write to the file
descriptors 1 and 2 is caught too; displays and a cell's value are display_data and
execute_result; an error is an error output with IPython's structured traceback. Execution stops
at the first error of a cell not tagged raises-exception, as nbclient's does.
"""

import base64
import contextlib
import gc
import importlib
import json
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from multiprocessing import get_context
from multiprocessing.connection import Connection, wait
from typing import Any

from nbformat import NotebookNode
from nbformat.v4 import new_output

TIMEOUT_S = 600  # a task still running after this long is stopped, and fails
POLL_S = 5  # how often the warm process looks for a task past its time


class CellFailed(Exception):
    """A cell not tagged raises-exception raised: what nbclient's CellExecutionError carries."""

    def __init__(self, ename: str, evalue: str, traceback: list[str]) -> None:
        self.ename, self.evalue, self.traceback = ename, evalue, traceback
        super().__init__(f"{ename}: {evalue}")


class TaskFailed(Exception):
    """A task's process failed outside the page's cells (it died, ran out of time, or raised)."""


# --- the warm process


class Warm:
    """A process that imports `preload` once, then runs each submitted task, fn(*args), in a child
    forked from it; submit returns a Future of what fn returned (or of TaskFailed). fn, its
    arguments and what it returns cross a pipe: they must pickle. Use it as a context manager:
    leaving stops the warm process and any child still running."""

    def __init__(self, preload: Iterable[str] = ()) -> None:
        context = get_context("fork")
        self._connection, theirs = context.Pipe()
        # not a daemon: its tasks may start processes of their own
        self._process = context.Process(target=_serve, args=(theirs, list(preload)))
        self._process.start()
        theirs.close()
        self._futures: dict[int, Future[Any]] = {}
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def submit(self, fn: Callable[..., Any], *args: Any) -> "Future[Any]":
        future: Future[Any] = Future()
        with self._lock:
            task = len(self._futures)
            self._futures[task] = future
            try:
                self._connection.send((task, fn, args))
            except OSError:
                future.set_exception(TaskFailed("the build's warm process stopped"))
        return future

    def _read(self) -> None:
        while True:
            try:
                task, ok, value = self._connection.recv()
            except (EOFError, OSError):
                break
            future = self._futures[task]
            future.set_result(value) if ok else future.set_exception(TaskFailed(value))
        with self._lock:
            left = list(self._futures.values())
        for future in left:  # the warm process is gone
            if not future.done():
                future.set_exception(TaskFailed("the build's warm process stopped"))

    def close(self) -> None:
        """Stop the warm process and any task still running (it may still be importing: a warm
        process that ran nothing is killed at once)."""
        if self._connection.closed:
            return
        with contextlib.suppress(OSError):
            self._connection.send(None)
        self._process.join(10 if self._futures else 0)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._connection.close()
        self._reader.join()

    def __enter__(self) -> "Warm":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _serve(connection: Connection, preload: list[str]) -> None:
    """The warm process: import what every task would, one module at a time, forking a child for
    each task as it comes (one that comes early finds the first modules imported, and imports
    what else it needs itself)."""
    children: dict[Connection, tuple[int, int, float]] = {}  # the child's pipe -> (task, pid, started)
    preload = list(preload)

    def stop(*_: object) -> None:
        for _task, pid, _started in children.values():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    while True:
        for _task, pid, started in list(children.values()):
            if time.monotonic() - started > TIMEOUT_S:
                os.kill(pid, signal.SIGKILL)  # its reader sees the end of the pipe next
        if preload:
            with contextlib.suppress(Exception):  # a page that imports it meets the error where it is written
                importlib.import_module(preload.pop(0))
        for ready in wait([connection, *children], timeout=0 if preload else POLL_S):
            if ready is connection:
                try:
                    message = connection.recv()
                except EOFError:
                    message = None
                if message is None:
                    stop()
                reader, writer = get_context("fork").Pipe(duplex=False)
                gc.freeze()  # what is imported stays out of the child's collections: fewer pages copied
                pid = os.fork()
                if pid == 0:
                    reader.close()
                    connection.close()
                    _child(writer, *message)
                writer.close()
                children[reader] = (message[0], pid, time.monotonic())
                continue
            assert isinstance(ready, Connection)
            task, pid, started = children.pop(ready)
            try:
                answer = ready.recv()
            except EOFError:
                answer = None
            ready.close()
            _, status = os.waitpid(pid, 0)
            if answer is None:
                late = time.monotonic() - started > TIMEOUT_S
                why = f"ran for more than {TIMEOUT_S} s" if late else _ended(status)
                answer = (task, False, f"the process running it {why}")
            connection.send(answer)


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"was killed by signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exited with status {os.waitstatus_to_exitcode(status)} before it answered"


def _child(writer: Connection, task: int, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        answer: tuple[int, bool, Any] = (task, True, fn(*args))
    except BaseException as error:  # noqa: BLE001 - the build reports it
        answer = (task, False, f"{type(error).__name__}: {error}")
    try:
        writer.send(answer)
    except Exception as error:  # noqa: BLE001 - what it returned does not pickle
        writer.send((task, False, f"its result could not be sent back: {error}"))
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(0)


# --- a notebook run in an IPython shell, as a Jupyter kernel would


def _json(value: Any) -> Any:
    """What the kernel would send of a display's data or metadata: bytes (a PNG) as base64."""

    def default(item: Any) -> Any:
        if isinstance(item, bytes):
            return base64.b64encode(item).decode("ascii")
        return str(item)

    return json.loads(json.dumps(value, default=default))


class _Outputs:
    """The outputs of the cell that runs now, with its stdout and stderr held until flushed."""

    def __init__(self, captured: dict[str, int]) -> None:
        self.cell: list[NotebookNode] = []
        self.pending: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self.captured = captured  # stream name -> the file its file descriptor writes to
        self.clear_on_next = False

    def write(self, name: str, text: str) -> None:
        self.pending[name].append(text)

    def flush(self, *names: str) -> None:
        for name in names or ("stdout", "stderr"):
            size = os.fstat(self.captured[name]).st_size
            if size:
                written = os.pread(self.captured[name], size, 0)
                os.ftruncate(self.captured[name], 0)
                os.lseek(self.captured[name], 0, os.SEEK_SET)
                self.pending[name].append(written.decode("utf-8", "replace"))
            text = "".join(self.pending[name])
            self.pending[name].clear()
            if text:
                self.add(new_output("stream", name=name, text=text))

    def add(self, output: NotebookNode) -> None:
        if self.clear_on_next:
            self.cell.clear()
            self.clear_on_next = False
        self.cell.append(output)

    def clear(self, wait: bool) -> None:
        self.flush()
        if wait:
            self.clear_on_next = True
        else:
            self.cell.clear()


class _Stream:
    """sys.stdout or sys.stderr of the page's shell."""

    encoding = "utf-8"
    errors = "replace"

    def __init__(self, outputs: _Outputs, name: str) -> None:
        self._outputs, self.name = outputs, name

    def write(self, text: str) -> int:
        self._outputs.write(self.name, text)
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._outputs.flush(self.name)

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return 1 if self.name == "stdout" else 2

    def writable(self) -> bool:
        return True


def _shell(outputs: _Outputs) -> Any:
    """IPython's shell, its display hook and publisher recording into outputs (as ipykernel's send)."""
    from IPython.core.displayhook import DisplayHook
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets import Type
    from traitlets.config import Config

    class Result(DisplayHook):
        def write_output_prompt(self) -> None:
            pass

        def write_format_data(self, format_dict: dict[str, Any], md_dict: dict[str, Any] | None = None) -> None:
            outputs.flush()
            outputs.add(
                new_output(
                    "execute_result",
                    data=_json(format_dict),
                    metadata=_json(md_dict or {}),
                    execution_count=self.prompt_count,
                )
            )

        def finish_displayhook(self) -> None:
            pass

    class Displays(DisplayPublisher):
        def publish(self, data: dict[str, Any], metadata: dict[str, Any] | None = None, *args: Any, **kw: Any) -> None:
            if kw.get("update"):  # nbclient leaves an update_display_data out of the cell's outputs
                return
            outputs.flush()
            outputs.add(new_output("display_data", data=_json(data), metadata=_json(metadata or {})))

        def clear_output(self, wait: bool = False) -> None:
            outputs.clear(wait)

    class Shell(InteractiveShell):
        displayhook_class = Type(Result)
        display_pub_class = Type(Displays)

        def _showtraceback(self, etype: type, evalue: BaseException, stb: list[str]) -> None:
            outputs.flush()
            outputs.add(new_output("error", ename=etype.__name__, evalue=str(evalue), traceback=stb))

    return Shell.instance(config=Config({"HistoryManager": {"enabled": False}}))


def run_notebook(notebook: NotebookNode, cwd: str, on_shell: Callable[[Any], None] | None = None) -> CellFailed | None:
    """Run the notebook's code cells in order, in this process, from cwd, filling in their outputs
    and execution counts; stop at the first cell that raises without the raises-exception tag and
    return its error (None if none). on_shell(shell) runs first (the engine's kernel installs itself)."""
    os.chdir(cwd)
    sys.argv = [""]
    sys.stdin = open(os.devnull)  # noqa: SIM115 - a cell that reads input meets its end, as in a kernel
    captured = {name: tempfile.TemporaryFile() for name in ("stdout", "stderr")}
    descriptors = {name: file.fileno() for name, file in captured.items()}
    os.dup2(descriptors["stdout"], 1)
    os.dup2(descriptors["stderr"], 2)
    outputs = _Outputs(descriptors)
    sys.stdout, sys.stderr = _Stream(outputs, "stdout"), _Stream(outputs, "stderr")
    shell = _shell(outputs)
    if on_shell is not None:
        on_shell(shell)
    from ipykernel.ipkernel import IPythonKernel

    notebook.metadata["language_info"] = IPythonKernel.language_info  # what ipykernel tells nbclient
    for cell in notebook.cells:
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        outputs.cell, outputs.clear_on_next = [], False
        count = shell.execution_count
        result = shell.run_cell(cell.source, store_history=True)
        outputs.flush()
        cell.outputs, cell.execution_count = outputs.cell, count
        error = result.error_before_exec or result.error_in_exec
        if error is not None and "raises-exception" not in cell.metadata.get("tags", []):
            shown = next((o for o in reversed(cell.outputs) if o.output_type == "error"), None)
            if shown is None:
                return CellFailed(type(error).__name__, str(error), [])
            return CellFailed(shown.ename, shown.evalue, list(shown.traceback))
    return None
