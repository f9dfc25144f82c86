"""The diagnoser's own failures: reported, never swallowed, never turned into other behaviour.

Every piece of the diagnoser that runs inside the user's program (the dispatch mode, the
saved-tensor hooks, the examination before a backward, the wrappers of ``detach_`` and ``numpy``)
is ``guarded``: an error of its own becomes a ``DiagnoserFailure``, a ``BaseException`` so that
the program's own ``except Exception`` cannot swallow it and run on with the diagnoser half
working. The program stops at that point; the command says so in one line (exit status 2), and
``diagnose()`` and ``watch()`` raise ``InternalError``.
"""

import functools
import os
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

import torch

from .location import at, display_path, is_driver, is_internal, is_ours, user_frame

F = TypeVar("F", bound=Callable[..., Any])


class DiagnoserFailure(BaseException):
    """The diagnoser's own code raised ``error`` while ``doing`` something, at the user's ``site``."""

    def __init__(self, error: BaseException, doing: str):
        self.error = error
        self.doing = doing
        self.site = user_frame()
        super().__init__(self.line())

    def line(self) -> str:
        frames = traceback.extract_tb(self.error.__traceback__)
        ours = [f for f in frames if is_internal(f.filename) and "inplace_doctor" in f.filename]
        where = f" at {at(ours[-1].filename, ours[-1].lineno)}" if ours else ""
        text = str(self.error).strip().splitlines()[0] if str(self.error).strip() else ""
        program = at(self.site.path, self.site.line) if self.site.line else "the program"
        return (
            f"internal error in the diagnoser ({type(self.error).__name__}{': ' + text if text else ''}{where}) "
            f"while {self.doing} at {program}; the program was stopped there and not changed: run it "
            "without the diagnoser, and please report this line"
        )


class InternalError(RuntimeError):
    """What ``diagnose()`` and ``watch()`` raise when the diagnoser itself failed."""


def guarded(doing: str) -> Callable[[F], F]:
    """Turn an error of the decorated function (the diagnoser's own) into a DiagnoserFailure.
    The in-place errors the diagnoser raises on purpose (``recorder.pytorch_error``) pass."""

    def wrap(function: F) -> F:
        @functools.wraps(function)
        def inner(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True  # pytest and IPython leave this frame out of the program's error
            try:
                return function(*args, **kwargs)
            except Exception as error:
                if getattr(error, "on_purpose", False):
                    raise
                raise DiagnoserFailure(error, doing) from error

        return inner  # type: ignore[return-value]

    return wrap


_OVERRIDES = os.path.abspath(torch.overrides.__file__)  # handle_torch_function: there for the diagnoser's mode


def user_traceback(error: BaseException) -> str:
    """The error's traceback without the diagnoser's frames nor a test runner's, then its message:
    what the program shows of it without the diagnoser, where the program's own code is."""
    frames = [
        traceback.FrameSummary(display_path(f.filename), f.lineno, f.name, line=f.line)
        for f in traceback.extract_tb(error.__traceback__)
        if not (is_ours(path := os.path.abspath(f.filename)) or is_driver(path) or path == _OVERRIDES)
    ]
    text = "".join(traceback.StackSummary.from_list(frames).format())
    head = "Traceback (most recent call last):\n" + text if frames else ""
    return head + "".join(traceback.format_exception_only(error))
