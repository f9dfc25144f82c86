"""Where in the user's code something happened: file, line and the nn.Module running."""

import linecache
import os
import sys
import sysconfig
from collections.abc import Callable
from types import FrameType
from typing import NamedTuple

import torch

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
# The tools that run the user's code (a test, a notebook cell): their frames are never the user's,
# and a walk up the stack from the user's code ends at the first of them.
_DRIVERS = ("_pytest", "pluggy", "pytest", "IPython", "ipykernel", "debugpy", "pydevd")
_TESTS_DIR = _PACKAGE_DIR + "tests" + os.sep  # the diagnoser's tests and battery: user code to it
_STDLIB_DIR = os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep


class Site(NamedTuple):
    """A line of source: where an nn.Module was built, or a NumPy array made."""

    path: str
    line: int

    @property
    def code(self) -> str:
        return linecache.getline(self.path, self.line).strip()

    def __str__(self) -> str:
        return f"{at(self.path, self.line)}: {self.code}"


class Location(NamedTuple):
    path: str
    line: int
    module: str  # the innermost nn.Module running at the time ("" outside any module)
    built: Site | None = None  # where that module was built, when the diagnoser saw it built
    inplace_class: str = ""  # that module's class ("nn.ReLU"), when torch's and made with inplace=True
    callers: tuple[Site, ...] = ()  # for a write: the user's frames that called this line, innermost first

    @property
    def code(self) -> str:
        return linecache.getline(self.path, self.line).strip()

    @property
    def site(self) -> Site:
        return Site(self.path, self.line)

    def __str__(self) -> str:
        module = f" in {self.module}" if self.module else ""
        return f"{at(self.path, self.line)}{module}: {self.code}"


_NAMERS: list[Callable[[str], str | None]] = []  # a notebook's: a cell's file name -> "Cell In[3]"


def name_cells(namer: Callable[[str], str | None]) -> None:
    """Name the code of notebook cells as IPython names them ("Cell In[3]", from the file name it
    compiled the cell under; None for any other file): their lines are then written
    "Cell In[3], line 5", as in IPython's tracebacks."""
    _NAMERS[:] = [namer]


def _cell_name(path: str) -> str | None:
    return _NAMERS[0](path) if _NAMERS else None


def at(path: str, line: int | None) -> str:
    """ "train.py:12", or "Cell In[3], line 12" for a notebook cell (name_cells)."""
    cell = _cell_name(path)
    return f"{cell}, line {line}" if cell else f"{display_path(path)}:{line}"


def display_path(path: str) -> str:
    """A notebook cell's name (name_cells); else relative to the working directory when below it;
    else as Python imports it, relative to the sys.path entry that holds it (minigpt/model.py); else
    as it is."""
    if cell := _cell_name(path):
        return cell
    absolute, here = os.path.abspath(path), os.getcwd()
    if absolute.startswith(here + os.sep):
        return os.path.relpath(absolute, here)
    roots = [os.path.abspath(entry or here) for entry in sys.path]
    holding = [root for root in roots if absolute.startswith(root.rstrip(os.sep) + os.sep)]
    return os.path.relpath(absolute, max(holding, key=len)) if holding else path


_INTERNAL: dict[str, bool] = {}  # filename -> is_internal (cached: asked at every saved tensor)


def is_ours(filename: str) -> bool:
    """Is the file one of the diagnoser's own modules?"""
    return filename.startswith(_PACKAGE_DIR) and not filename.startswith(_TESTS_DIR)


def is_driver(filename: str) -> bool:
    """Is the file a test runner's or a notebook kernel's, that runs the user's code?"""
    return any(f"{os.sep}{tool}{os.sep}" in filename for tool in _DRIVERS)


def is_internal(filename: str) -> bool:
    """Is the file torch's, this package's or Python's own library (not the user's code)?"""
    if filename not in _INTERNAL:
        absolute = os.path.abspath(filename)
        standard = absolute.startswith(_STDLIB_DIR) and not any(
            part in ("site-packages", "dist-packages") for part in absolute.split(os.sep)
        )
        _INTERNAL[filename] = (
            filename.startswith(_TORCH_DIR)
            or filename.startswith("<frozen ")
            or is_driver(absolute)
            or is_ours(absolute)
            or standard
        )
    return _INTERNAL[filename]


_INIT_FILE = os.path.join(_TORCH_DIR, "nn", "init.py")  # torch.nn.init: a module's weights set up
MAX_CALLERS = 8
_USER, _OTHER, _INIT, _STOP = range(4)


class _Roles(dict):
    """filename -> its role in a walk up the stack, cached: the user's code; torch's, Python's or
    ours; torch.nn.init; where the walk up from the user's code ends (ours, a test runner's)."""

    def __missing__(self, filename: str) -> int:
        role = _INIT if filename == _INIT_FILE else _STOP if is_ours(filename) or is_driver(filename) else _OTHER
        self[filename] = role = role if is_internal(filename) else _USER
        return role


_ROLES = _Roles()
# Each line, and chain of callers, made once: a loop meets the same at every step (less for the gc)
_SITES: dict[tuple[str, int], Site] = {}
_CALLERS: dict[tuple[Site, ...], tuple[Site, ...]] = {}


def user_frame() -> Site:
    """(file, line) of the innermost Python frame outside torch and outside this package."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and _ROLES[frame.f_code.co_filename] != _USER:
        frame = frame.f_back
    return Site(frame.f_code.co_filename, frame.f_lineno) if frame is not None else Site("<unknown>", 0)


def user_stack() -> tuple[Site, tuple[Site, ...], bool]:
    """(``user_frame()``, the user's frames that called it, whether torch.nn.init runs below it) in
    one walk up the stack: what a write records (an optimizer step makes hundreds a step). The
    callers, innermost first, go up to the script's own line (or the line that handed a function to
    the diagnoser): torch's and Python's own frames are skipped, and the walk ends at the
    diagnoser's frame below the program."""
    frame: FrameType | None = sys._getframe(1)
    found: list[Site] = []
    initialising = False
    while frame is not None:
        role = _ROLES[frame.f_code.co_filename]
        if role == _USER:
            key = (frame.f_code.co_filename, frame.f_lineno)
            found.append(_SITES.get(key) or _SITES.setdefault(key, Site(*key)))
            if len(found) > MAX_CALLERS:
                break
        elif not found:
            initialising = initialising or role == _INIT
        elif role == _STOP:
            break
        frame = frame.f_back
    callers = tuple(found[1:])
    return (found[0] if found else Site("<unknown>", 0)), _CALLERS.setdefault(callers, callers), initialising
