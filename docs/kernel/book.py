"""Helpers for the book's notebook kernel (docs/kernel is on the kernel's PYTHONPATH).

Every executed page starts with a hidden setup cell:

    from book import expect_raised, stamp
    stamp()
"""

import datetime
import os
import platform
import sys
from pathlib import Path

_last = {"error": None}


def remember_error(error):
    """What the cell that just ran raised (None if nothing): read by expect_raised.

    Inside the book's kernel an IPython hook calls it after every cell; a plain-Python runner of
    the same cells (bench/docs_build.py) calls it itself.
    """
    _last["error"] = error


def _remember_error(result):
    remember_error(result.error_in_exec)


def _register():
    try:
        shell = get_ipython()  # noqa: F821 - defined inside IPython
    except NameError:
        return
    shell.events.register("post_run_cell", _remember_error)


_register()


def expect_raised(exc_type, fragment):
    """Fail (and so fail the build) unless the previous cell raised exc_type with fragment."""
    error = _last["error"]
    if not isinstance(error, exc_type) or fragment not in str(error):
        got = f"raised {type(error).__name__}: {error}" if error else "did not raise"
        raise AssertionError(f"the cell above must raise {exc_type.__name__} "
                             f"containing {fragment!r}, but it {got}")


def repo_root():
    """The repository holding the justfile, examples/ and minigpt/."""
    if os.environ.get("BOOK_REPO_ROOT"):
        return Path(os.environ["BOOK_REPO_ROOT"])
    for folder in [Path.cwd(), *Path.cwd().parents]:
        if (folder / "justfile").is_file():
            return folder
    raise RuntimeError("cannot find the repository root (no justfile above the working directory)")


def versions():
    import torch

    return {"torch": torch.__version__, "python": platform.python_version()}


def stamp():
    """Show which torch produced this page's outputs (language-neutral, so cells stay identical)."""
    from IPython.display import HTML, display

    v = versions()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    display(HTML(f'<div class="book-stamp">⚙ torch {v["torch"]} · Python {v["python"]} · '
                 f'{sys.platform} · {when}</div>'))
