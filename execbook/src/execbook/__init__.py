"""The engine's public API: a book's code uses only the names below (import-linter forbids it any other
engine module); the engine reaches the book's code only by name ([tool.book.hooks]).

What runs again is decided by one fingerprint (store.fingerprint), kept in two caches: MyST-NB's
execution cache, each page's executed notebook under its cells (whose hidden setup cell names it),
and the store (docs/_build/store), the results pages share (`memoized`), whose log fails a build
that computes one twice. A failure is a cases.Failure, kept by the page's guard, rendered by the build.
"""

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .cases import Outcome

__version__ = "0.2.0"

_EXPORTS = {  # name -> (module, its name there), imported when first used: importing execbook needs no book
    **{n: ("cases", n) for n in ("Case", "Outcome", "cases_with")},
    "ENTRY_KEYS": ("cases", "KEYS"),
    **{
        n: ("gluing", n)
        for n in ("FIGURE_WIDTH", "glue", "glue_by_value", "glue_figure", "glue_html", "glue_number")
        + ("glue_words", "number", "raised")
    },
    **{n: ("config", n) for n in ("EXAMPLES", "LANGUAGES", "REPO", "STORE")},
    "excerpt": ("tracebacks", "excerpt"),
    "store_folder": ("store", "folder"),
    "memoized": ("store", "memoized"),
    "ABSOLUTE_PATH": ("tracebacks", "ABSOLUTE"),
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'execbook' has no attribute {name!r}")
    from importlib import import_module

    module, attribute = _EXPORTS[name]
    return getattr(import_module(f"execbook.{module}"), attribute)


def outcome(name: str) -> "Outcome":
    """The outcome of example `name` (examples/<name>.py judged against its manifest entry): as its
    page's guard recorded it in this kernel, else from the build's store, else run now."""
    from . import deps, kernel

    return kernel.outcomes.get(name) or deps.outcome(name)


@cache
def code_fingerprint(*files: str | Path) -> str:
    """The fingerprint of these files, of every repository module they import and of the releases
    [tool.book] `fingerprinted` names: a key for results they compute (once per process)."""
    from . import deps

    return deps.fingerprint(deps.closure({Path(f) for f in files}))


__all__ = [*_EXPORTS, "code_fingerprint", "outcome"]
