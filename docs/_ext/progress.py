"""Say which pages this build executes, and start their kernels over IPC.

- Prints ``docs: <lang>: executing <page> ...`` when MyST-NB starts executing a page (not when it
  takes the outputs from its cache) and ``docs: <lang>: <page> executed in 31.2 s (18 cells)``
  when it ends. A page served from the cache prints nothing, so a rebuild with no change stays
  quiet. Printed to stdout and flushed, so ``sphinx -q`` does not hide it.
- Starts every notebook kernel on IPC sockets in a private temporary folder instead of TCP on
  localhost: ipykernel 7 warns "Kernel is running over TCP without encryption" for every kernel
  started over TCP without CurveZMQ keys, and never for IPC.

Both go through the one call MyST-NB makes to execute a page (jupyter-cache's
``single_nb_execution``, which passes extra keywords to nbclient's ``NotebookClient``): MyST-NB
has no setting for the kernel manager's configuration.
"""

import time
from functools import wraps
from pathlib import Path
from tempfile import TemporaryDirectory

from traitlets.config import Config

# The page being read (set by source-read; MyST-NB executes it while parsing it, in this process).
PAGE = {"language": "", "docname": ""}


def kernel_config(sockets):
    """nbclient configuration: the kernel listens on IPC sockets, files in the folder `sockets`.

    The socket path must be absolute: by default it is relative ("kernel-ipc-1") and the kernel,
    started in the page's folder, would not meet the manager, which runs in the build's folder.
    """
    return Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel")}})


def say(line):
    print(line, flush=True)


def code_cells(notebook):
    return sum(1 for cell in notebook.cells if cell.cell_type == "code")


def announced(execute):
    """`execute` (jupyter-cache's single_nb_execution) saying when it starts and ends, over IPC."""
    @wraps(execute)
    def execute_announced(notebook, *args, **kwargs):
        prefix, page = f"docs: {PAGE['language']}:", PAGE["docname"]
        say(f"{prefix} executing {page} ...")
        start = time.perf_counter()
        with TemporaryDirectory(prefix="kernel-") as sockets:
            result = execute(notebook, *args, config=kernel_config(sockets), **kwargs)
        seconds = time.perf_counter() - start
        if result.err is None:
            say(f"{prefix} {page} executed in {seconds:.1f} s ({code_cells(notebook)} cells)")
        else:
            say(f"{prefix} {page} failed after {seconds:.1f} s")
        return result

    execute_announced.announces = True
    return execute_announced


def announce_executions():
    """Wrap the execution call of MyST-NB's cache and force/auto modes (once per process)."""
    from myst_nb.core.execute import cache, direct

    for module in (cache, direct):
        if not getattr(module.single_nb_execution, "announces", False):
            module.single_nb_execution = announced(module.single_nb_execution)


def note_page(app, docname, source):
    PAGE.update(language=app.config.language or "", docname=docname)


def setup(app):
    announce_executions()
    app.connect("source-read", note_page)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
