"""What the book's notebook kernel runs around the pages' cells.

docs/_ext/cases.py puts a hidden setup cell at the top of every executed page

    from book.kernel import check, stamp
    stamp()

and a hidden `check("<example>")` after each cell that loads an example, so a page declares no
expectation itself: examples/cases.toml does, once.
"""

import datetime
import platform
import sys

from . import cases, store

_last = {"error": None}
_outcomes = {}  # example name -> Outcome, for the cases checked in this kernel


def remember_error(error):
    """What the cell that just ran raised (None if nothing): read by check.

    Inside the book's kernel an IPython hook calls it after every cell; a plain-Python runner of
    the same cells (bench/docs_build.py) calls it itself.
    """
    _last["error"] = error


def _register():
    try:
        shell = get_ipython()  # noqa: F821 - defined inside IPython
    except NameError:
        return
    shell.events.register("post_run_cell", lambda result: remember_error(result.error_in_exec))


_register()


def _namespace():
    try:
        return get_ipython().user_ns  # noqa: F821
    except NameError:
        return vars(sys.modules["__main__"])


def check(name, namespace=None):
    """Judge the cell that just ran examples/<name>.py against the manifest; fail (and so fail
    the build) unless it did what the manifest says. The outcome is kept for the safe-case
    summary and, for the claims, in the build's store."""
    case = cases.manifest()[name]
    outcome = cases.judge(case, _last["error"], _namespace() if namespace is None else namespace)
    _outcomes[name] = outcome
    key = cases.outcome_key(name)
    store.note_computed("case", key, seconds=0.0)  # the cell above was this case's one run
    store.save("case", key, outcome)
    if not outcome.ok:
        raise AssertionError(cases.failure_line(outcome))
    return outcome


def outcomes():
    """name -> Outcome of every case checked in this kernel so far."""
    return dict(_outcomes)


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
