"""Nothing unstable is published: before the build keeps a page's execution, no output may hold what
changes from run to run or machine to machine (a memory address, a machine's path, a random id),
each named at the example's line that printed it."""

import contextlib
import io
import re
import sys
import traceback
from collections.abc import Iterator

from nbformat import NotebookNode

from . import cases, config, gluereport, pages

TEXT_OUTPUTS = ("text/plain", "text/html", "text/markdown", "text/latex")


def unstable() -> list[tuple[re.Pattern[str], str, str]]:
    """(pattern, what, what to do) of what no published output may hold (the checkout's path is this machine's)"""
    return [
        (
            re.compile(r"\b0x[0-9a-fA-F]{6,}\b"),
            "a memory address",
            "it changes on every run: print what the object is (type(x).__name__, x.name(), a shape), not the object",
        ),
        (
            re.compile(re.escape(str(config.REPO)) + r"|(?<![\w.])/tmp/[\w./-]*"),
            "a path of the build machine",
            "print a path relative to the repository (path.relative_to(...)) or only its name",
        ),
        (
            re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
            "a random id",
            "print something that is the same on every run",
        ),
    ]


def _texts(cell: NotebookNode) -> Iterator[tuple[str, str]]:
    """(output type, text) of each textual output of a code cell."""
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream":
            yield kind, output.get("text", "")
        elif kind == "error":
            yield kind, "\n".join([output.get("evalue", ""), *output.get("traceback", [])])
        elif kind in ("execute_result", "display_data"):
            data = gluereport.mimes(output)
            for mime in TEXT_OUTPUTS:
                if value := data.get(mime):
                    yield kind, value if isinstance(value, str) else "".join(value)


def printed_at(name: str, pattern: re.Pattern[str]) -> int | None:
    """The line of examples/<name>.py whose output matches pattern: it runs again here, its stdout noting lines."""
    case = cases.manifest()[name]
    found: list[int | None] = []

    class Noting(io.StringIO):
        def write(self, text: str) -> int:
            if pattern.search(text):
                stack = [(frame.f_code.co_filename, line, "") for frame, line in traceback.walk_stack(sys._getframe())]
                found.append(cases.line_in(case, stack))
            return super().write(text)

    code = compile(cases.split(case.path)[0], str(case.path), "exec")
    with contextlib.redirect_stdout(Noting()), contextlib.suppress(Exception):
        exec(code, {"__name__": "__main__", "__file__": str(case.path)})
    return next(filter(None, found), None)


def unstable_outputs(docname: str, notebook: NotebookNode, locate: bool = True) -> list[str]:
    """A paragraph per output that holds something unstable, named at the example and its line."""
    found, where = [], f"{docname} ({', '.join(config.LANGUAGES)})"
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        for kind, text in _texts(cell):
            for pattern, what, todo in unstable():
                if not (hit := pattern.search(text)):
                    continue
                name, line = pages.example_of(notebook, index), None  # its own, or its guard's
                if name and locate:
                    result = kind == "execute_result"
                    line = cases.last_statement(cases.manifest()[name]) if result else printed_at(name, pattern)
                shown = text[text.rfind("\n", 0, hit.start()) + 1 :].split("\n", 1)[0].strip()[:160]
                reason = f"its output shows {what}, which no published page may hold: {shown}"
                file = f"examples/{name}.py" if name else "a cell of the page"
                found.append(cases.Failure(file, line, "unstable", reason, todo).render(where))
                break
    return found
