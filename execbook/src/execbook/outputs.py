"""Nothing broken is published: what the build checks in a page's executed notebook before it keeps
it. Nothing of its source was lost on the way (a cell that loads an example, a glued value the
prose quotes, a figure: MyST-NB's reading is what gets published), and no output holds what
changes from run to run or machine to machine (a memory address, a path of the build machine, a
random id), named at the example's line that printed it.
"""

import ast
import contextlib
import io
import re
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

from nbformat import NotebookNode

from . import cases, changes, check, config, pages

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
            data = changes.mimes(output)
            for mime in TEXT_OUTPUTS:
                value = data.get(mime)
                if value:
                    yield kind, value if isinstance(value, str) else "".join(value)


def printed_at(name: str, pattern: re.Pattern[str]) -> int | None:
    """The line of examples/<name>.py whose output matches pattern: the example runs again, in this
    process, with a stdout that notes the line of the example that wrote each piece."""
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


def last_statement(name: str) -> int | None:
    """The line of the example's last statement: the expression a cell displays as its result."""
    body = ast.parse(cases.split(cases.manifest()[name].path)[0]).body
    return body[-1].lineno if body else None


def unstable_outputs(docname: str, notebook: NotebookNode, locate: bool = True) -> list[str]:
    """A paragraph per output that holds something unstable, named at the example and its line."""
    found = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        for kind, text in _texts(cell):
            for pattern, what, todo in unstable():
                hit = pattern.search(text)
                if not hit:
                    continue
                name = cell.metadata.get(pages.EXAMPLE) or cell.metadata.get(pages.GUARDS)  # its own, or its guard's
                line = None
                if name and locate:
                    line = last_statement(name) if kind == "execute_result" else printed_at(name, pattern)
                shown = text[text.rfind("\n", 0, hit.start()) + 1 :].split("\n", 1)[0].strip()[:160]
                reason = f"its output shows {what}, which no published page may hold: {shown}"
                failure = cases.Failure(
                    f"examples/{name}.py" if name else "a cell of the page", line, "unstable", reason, todo
                )
                found.append(failure.render(f"{docname} ({', '.join(config.LANGUAGES)})"))
                break
    return found


def lost_content(
    docname: str, sources: dict[str, Path], read: dict[str, NotebookNode], executed: NotebookNode
) -> list[str]:
    """What the source of each language has that its page, as MyST-NB read it and the kernel ran
    it, lacks: a cell that loads an example, a glued value, a figure."""
    found = []
    glued = {changes.scrapbook(o).get("name") for c in executed.cells for o in c.get("outputs", [])}
    ran = [c.metadata.get(pages.EXAMPLE) for c in executed.cells if pages.EXAMPLE in c.metadata]
    for language, path in sources.items():
        shown = f"{config.DOCS.name}/{language}/{docname}.md"  # as the author wrote it
        source = check.read(path, shown)
        for cell in source.cells:
            if "load" not in cell.options:
                continue
            name = Path(cell.options["load"][1]).stem
            if name not in ran:
                found.append(
                    f"{shown}:{cell.opening}: the cell that loads examples/{name}.py is not in the executed "
                    "page → python -m execbook check names the fence that swallowed it"
                )
        for line, key, _ in sorted(check.glue_quotes(source), key=lambda quote: quote[1]):
            if key not in glued:
                found.append(
                    f"{shown}:{line}: the page quotes the glued value {key}, which no example glued → glue "
                    "it in an example's hidden checks (glue_number, glue_by_value), or correct the key"
                )
        markdown = "\n".join(c.source for c in read[language].cells if c.cell_type == "markdown")
        expected = len(source.figures)
        present = len(check.parse(markdown).figures)
        if present < expected:
            found.append(
                f"{shown}:{source.figures[present].opening}: {expected} figure(s) in the source, {present} "
                "in the page → python -m execbook check "
                "names the fence that swallowed the others"
            )
    return found
