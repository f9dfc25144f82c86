"""What the book's notebook kernel runs around the pages' cells.

docs/_ext/casecells.py (with book/pages.py) puts a hidden setup cell under the title of every
executed page

    import book.kernel as _book
    _book.stamp()
    _book.will_check([<the examples the page loads>])

and a hidden `_book.check("<example>")` after each cell that loads an example, so a page declares no
expectation itself: examples/cases.toml does, once.

Inside IPython, importing this module also makes what the cells print readable (book.tracebacks):
the traceback of a cell that raises keeps the frames of the reader's code (the cell, minigpt/,
tapegrad/, book/) and folds those of torch, Python and Jupyter into a line that counts them; a
warning (anomaly mode's report) is printed the same way; no path of the build machine is shown.
"""

import datetime
import platform
import sys
import warnings

from . import cases, publish, repo_root, store, tracebacks

_last = {"error": None}
CELL_OUTPUT_FLUSH_S = 24 * 3600  # longer than any cell: ipykernel flushes a cell's output when it ends
_outcomes = {}  # example name -> Outcome, for the cases checked in this kernel


def remember_error(error):
    """What the cell that just ran raised (None if nothing): read by check.

    Inside the book's kernel an IPython hook calls it after every cell; a plain-Python runner of
    the same cells (bench/docs_build.py) calls it itself.
    """
    _last["error"] = error


def install(shell):
    """Set up the IPython shell that runs a page's cells: after every cell, remember what it raised
    (for check); show a cell's error and the warnings it emits through book.tracebacks."""
    shell.events.register("post_run_cell", lambda result: remember_error(result.error_in_exec))
    # ipykernel sends what a cell prints in chunks, one every 0.2 s; MyST-NB joins a cell's chunks
    # after stripping each one's trailing blank lines, so where the chunks were cut (how fast this
    # machine ran the cell) would change the page. Send each cell's output once, when it ends.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "flush_interval"):
            stream.flush_interval = CELL_OUTPUT_FLUSH_S
    places = tracebacks.Places(repo=str(repo_root()), cell_label=lambda path: _cell_label(shell, path))
    shell.set_custom_exc((Exception,), lambda shell, etype, value, tb, tb_offset=None:
                         show_exception(shell, places, etype, value, tb))
    warnings.showwarning = tracebacks.warning_printer(places)


def _cell_label(shell, path):
    """"Cell In[6]" for the file IPython compiled a cell into, None for any other file."""
    named = shell.compile.format_code_name(path)
    return " ".join(named) if named else None


def show_exception(shell, places, etype, value, tb):
    """IPython's custom exception handler: the error output of the cell that raised, with the
    brief traceback of book.tracebacks (the shell's own outermost frame left out, as IPython does).
    IPython has already recorded the error for the post_run_cell hook, so the guard still sees it.
    What the brief traceback does not cover (syntax errors, exception groups, exceptions that
    render themselves) and any failure of its own get IPython's traceback."""
    if (issubclass(etype, SyntaxError) or isinstance(value, BaseExceptionGroup)
            or hasattr(value, "_render_traceback_")):
        return shell.showtraceback((etype, value, tb), running_compiled_code=True)
    try:
        stb = tracebacks.structured_traceback(value, places, tb=tb, skip=1)
    except Exception:  # noqa: BLE001 - never hide the cell's error behind the formatter's
        return shell.showtraceback((etype, value, tb), running_compiled_code=True)
    shell._showtraceback(etype, value, stb)


def _register():
    try:
        shell = get_ipython()  # noqa: F821 - defined inside IPython
    except NameError:
        return
    install(shell)


_register()


def _namespace():
    try:
        return get_ipython().user_ns  # noqa: F821
    except NameError:
        return vars(sys.modules["__main__"])


def will_check(names):
    """Promise the outcomes of the cases this page checks (the setup cell calls it): a page read
    at the same time in the other process that needs one waits for it (book.store)."""
    store.promise("case", [cases.outcome_key(name) for name in names])


def check(name, namespace=None):
    """Judge the cell that just ran examples/<name>.py against the manifest; fail (and so fail
    the build) unless it did what the manifest says. The outcome is kept for the safe-case
    summary and, for the claims, in the build's store. Then the example's publisher glues what
    the prose quotes and checks what it states (book.publish)."""
    case = cases.manifest()[name]
    outcome = cases.judge(case, _last["error"], _namespace() if namespace is None else namespace)
    _outcomes[name] = outcome
    key = cases.outcome_key(name)
    store.note_computed("case", key, seconds=0.0)  # the cell above was this case's one run
    store.save("case", key, outcome)
    if not outcome.ok:
        raise AssertionError(cases.failure_line(outcome))
    from myst_nb import glue

    publish.publish(name, _namespace() if namespace is None else namespace,
                    lambda key, value: glue(key, value, display=False), _last["error"])
    return outcome


def outcomes():
    """name -> Outcome of every case checked in this kernel so far."""
    return dict(_outcomes)


def versions():
    import torch

    return {"torch": torch.__version__, "python": platform.python_version()}


def stamp():
    """Glue `book_stamp`: which torch produced this page's outputs (language-neutral, so cells stay
    identical); the page shows it under its title (book.pages)."""
    from IPython.display import HTML
    from myst_nb import glue

    v = versions()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    glue("book_stamp", HTML(f'<div class="book-stamp">⚙ torch {v["torch"]} · Python {v["python"]} · '
                            f'{sys.platform} · {when}</div>'), display=False)
