"""Tracebacks and warnings as a reader can read them: what a cell prints is published, so every path
is named as the reader finds it (`minigpt/model.py`, `Cell In[6]`), never the build machine's, and the
frames of code the reader did not write fold into one line (`[3 frames in torch left out]`): `fold`
for IPython's traceback of a cell's error, `brief` for a text (a warning); `excerpt` cuts a long text."""

import contextlib
import linecache
import os
import re
import sys
import sysconfig
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from itertools import groupby
from typing import TextIO

JUPYTER = set(  # folded as "Jupyter"
    "IPython ipykernel ipykernel_launcher ipython_pygments_lexers jupyter_client jupyter_core tornado zmq "
    "traitlets comm debugpy nbclient".split()
)
VIRTUAL_ENVIRONMENTS = {".nox", ".tox", ".venv", "venv", "site-packages", "dist-packages"}
PACKAGES_DIR = re.compile(r"[/\\](?:site|dist)-packages[/\\]")
# An absolute path inside a text: not part of a URL, a ratio or a date.
ABSOLUTE = re.compile(r"(?<![\w.:/\\])/[^\s\"'<>:,()\[\]]+")
# One frame of a Python traceback as text ("  File "x.py", line 3, in f"), or as faulthandler writes it (no comma).
FRAME_LINE = re.compile(
    r'^(?P<indent>[ \t]*)File "(?P<path>[^"]+)", line (?P<line>\d+)(?:,? in (?P<function>.*))?$', re.M
)


_STDLIB = {os.path.normpath(sysconfig.get_paths()[k]) for k in ("stdlib", "platstdlib")}
STDLIB = tuple(sorted(_STDLIB, key=len, reverse=True))  # the innermost folder first


def _under(path: str, root: str) -> str | None:
    """path relative to root, or None when it is not inside root."""
    path, root = os.path.normpath(path), os.path.normpath(root)
    return os.path.relpath(path, root) if path.startswith(root + os.sep) else None


@dataclass(frozen=True)
class Places:
    """Which files are the project's own, and how the reader names a file. cell_label: a cell's file ->
    "Cell In[6]", else None; native: folders of compiled code named by path ([tool.book] native-sources)."""

    repo: str
    cell_label: Callable[[str], str | None] = lambda path: None
    stdlib: tuple[str, ...] = STDLIB
    native: tuple[str, ...] = ()

    def origin(self, path: str) -> str:
        """ "cell", "project", or what the code belongs to: "torch", "Python", "Jupyter", a package."""
        if self.cell_label(path) is not None:
            return "cell"
        if path.startswith("<"):  # <frozen runpy>, <string>
            return "Python"
        if packages := PACKAGES_DIR.search(path):
            top = re.split(r"[/\\.]", path[packages.end() :], maxsplit=1)[0]
            return "Jupyter" if top in JUPYTER else top
        if (inside := _under(path, self.repo)) is not None:
            return "other code" if VIRTUAL_ENVIRONMENTS & set(inside.split(os.sep)) else "project"
        if os.path.normpath(path).startswith(self.stdlib):
            return "Python"
        return "other code"

    def is_ours(self, path: str) -> bool:
        """The reader's code: a cell of the page, or a file of the repository."""
        return self.origin(path) in ("cell", "project")

    def display(self, path: str) -> str:
        """The path as the reader names it: from the repository, site-packages, the standard library or
        a native folder; a cell by its label."""
        if (label := self.cell_label(path)) is not None:
            return label
        folders = "|".join(re.escape(folder).replace("/", r"[/\\]") for folder in self.native)
        native = re.search(rf"[/\\]((?:{folders})[/\\])", path) if folders else None
        if native and path.startswith(("/", "\\")):
            return path[native.start(1) :]
        if packages := PACKAGES_DIR.search(path):
            return path[packages.end() :]
        return next((r for root in (self.repo, *self.stdlib) if (r := _under(path, root)) is not None), path)


def shorten_paths(text: str, places: Places) -> str:
    """Every absolute path in text as places.display names it."""
    return ABSOLUTE.sub(lambda m: places.display(m.group()), text)


# fold_line's words, for a page in another language to say them in its own (sphinxext.words.left_out_in)
FOLDED = re.compile(r"\[(?P<count>\d+) frames? in (?P<where>[^\]]+?) left out\]")


def fold_line(origins: list[str], indent: str = "") -> str:
    """The line standing for frames left out, origins being each one's (e.g. ["torch", "torch"])."""
    names = list(dict.fromkeys(origins))  # in order of appearance, once
    where = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    count = len(origins)
    return f"{indent}[{count} frame{'s' if count != 1 else ''} in {where} left out]"


def _folded(parts: list[tuple[str | None, str]], end: str = "") -> list[str]:
    """parts: (None, text kept) or (origin, indent) of a frame left out, each run of those one fold_line."""
    out: list[str] = []
    for left_out, run in groupby(parts, key=lambda part: part[0] is not None):
        found = list(run)
        origins = [origin for origin, _ in found if origin is not None]
        out += [fold_line(origins, found[-1][1]) + end] if left_out else [text for _, text in found]
    return out


def brief(text: str, places: Places) -> str:
    """text (a warning) with its Python tracebacks' foreign frames (a File line, the lines indented under it)
    folded, and no machine paths."""
    parts: list[tuple[str | None, str]] = []
    frame: re.Match[str] | None = None  # the frame the lines read now belong to
    for line in text.split("\n"):
        under = frame is not None and len(line) - len(line.lstrip()) > len(frame["indent"]) and line.strip()
        if not under or line.lstrip().startswith("(Triggered internally"):
            frame = None
        if match := FRAME_LINE.match(line):
            frame = match
            if not places.is_ours(match["path"]):
                parts.append((places.origin(match["path"]), match["indent"]))
                continue
            where = places.cell_label(match["path"]) or f'File "{places.display(match["path"])}"'
            function = "" if match["function"] is None else f", in {match['function']}"
            line = f"{match['indent']}{where}, line {match['line']}{function}"
        elif frame is not None and not places.is_ours(frame["path"]):
            continue  # a line of a frame left out
        parts.append((None, line))
    return shorten_paths("\n".join(_folded(parts)), places)


def format_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    places: Places,
    line: str | None = None,
) -> str:
    """A warning as warnings.formatwarning writes it, `brief`; where it was raised only in the reader's code."""
    text = brief(str(message), places)
    if not places.is_ours(filename):
        return f"{category.__name__}: {text}\n"
    line = (linecache.getline(filename, lineno) if line is None else line).strip()  # by the machine's path
    return warnings.formatwarning(text, category, places.display(filename), lineno, line)


def warning_printer(places: Places) -> Callable[..., None]:
    """A `warnings.showwarning` writing format_warning, flushed at once (before what the cell prints next)."""

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        file = sys.stderr if file is None else file
        with contextlib.suppress(OSError):
            file.write(format_warning(message, category, filename, lineno, places, line))
            file.flush()

    return show


# The first line of a frame in IPython's structured traceback ("File /x/y.py:3, in f(a)", "Cell In[6], line 3")
IPYTHON_FRAME = re.compile(r"^(?:File (?P<path>.+?):\d+(?:, in .*)?|Cell In\[\d+\], line \d+.*)$")
CONTEXT = 3  # IPython's lines of context: the line that ran and one on each side


def fold(entries: list[str], places: Places) -> list[str]:
    """IPython's structured traceback (a string per frame) with foreign frames folded, no machine path."""
    parts: list[tuple[str | None, str]] = []
    for entry in entries:
        first, _, rest = entry.partition("\n")
        frame = IPYTHON_FRAME.match(first)
        # IPython names a file under the home folder "~/..." (compress_user): where is the checkout?
        path = os.path.expanduser(frame["path"]) if frame and frame["path"] else None
        if path is not None and not places.is_ours(path):
            parts.append((places.origin(path), ""))
        elif frame is None:
            parts.append((None, shorten_paths(entry, places)))
        else:
            head = first if path is None else first.replace(frame["path"], places.display(path), 1)
            parts.append((None, head + ("\n" + rest if rest else "")))
    return _folded(parts, end="\n")


def excerpt(new: object, old: object = None, width: int = 48, context: int = 14) -> str:
    """new, short enough to read in a table cell: the part that differs from old with a little
    context around it ("…check_nan=False)."), or new's beginning; "…" marks what is left out."""
    new = str(new)
    if len(new) <= width:
        return new
    start, end = 0, len(new)
    if old is not None and str(old) != new:
        old = str(old)
        prefix = len(os.path.commonprefix([old, new]))  # character by character
        suffix = min(len(os.path.commonprefix([old[::-1], new[::-1]])), len(new) - prefix, len(old) - prefix)
        start, end = max(0, prefix - context), min(len(new), len(new) - suffix + context)
    end = min(end, start + width)
    if start > 0:  # whole words at either end: the nearest space outside, else inside
        space = new.rfind(" ", 0, start)
        inside = new.find(" ", start, end)
        start = space + 1 if space >= 0 and start - space <= context else inside + 1 if inside >= 0 else start
    if end < len(new):
        space = new.find(" ", end)
        inside = new.rfind(" ", start, end)
        end = space if 0 <= space and space - end <= context else inside if inside > start else end
    return ("…" if start > 0 else "") + new[start:end].strip() + ("…" if end < len(new) else "")
