"""Where in the user's code something happened: file, line and the nn.Module running."""

import linecache
import os
import sys
from typing import NamedTuple

import torch

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class Location(NamedTuple):
    path: str
    line: int
    module: str  # the innermost nn.Module running at the time ("" outside any module)

    @property
    def code(self):
        return linecache.getline(self.path, self.line).strip()

    def __str__(self):
        where = f"{display_path(self.path)}:{self.line}"
        if self.module:
            where += f" in {self.module}"
        return f"{where}: {self.code}"


def display_path(path):
    """Relative to the working directory when below it; else as Python imports it, relative to
    the sys.path entry that holds it (minigpt/model.py); else as it is."""
    absolute, here = os.path.abspath(path), os.getcwd()
    if absolute.startswith(here + os.sep):
        return os.path.relpath(absolute, here)
    roots = [os.path.abspath(entry or here) for entry in sys.path]
    holding = [root for root in roots if absolute.startswith(root.rstrip(os.sep) + os.sep)]
    return os.path.relpath(absolute, max(holding, key=len)) if holding else path


_INTERNAL = {}  # filename -> inside torch or this package (cached: asked at every op)


def _is_internal(filename):
    if filename not in _INTERNAL:
        _INTERNAL[filename] = filename.startswith(_TORCH_DIR) or os.path.abspath(filename).startswith(_PACKAGE_DIR)
    return _INTERNAL[filename]


def user_frame():
    """(file, line) of the innermost Python frame outside torch and outside this package."""
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("<unknown>", 0)
