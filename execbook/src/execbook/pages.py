"""The executed pages. `read` is their one reader, for the build and for MyST-NB (a custom format), so
the execution cache serves both: to MyST-NB's reading it adds each example's shown code and name,
the raises-exception tag from the manifest, a hidden guard after it (execbook.kernel.check), and
first a hidden setup cell naming the page's fingerprint; each added cell takes the source line of
its cell (`source_map`), so Sphinx's warnings name the author's lines."""

import json
import os
import re
from itertools import chain
from pathlib import Path

from myst_nb.core.read import is_myst_markdown_notebook, read_myst_markdown_notebook
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell

from . import cases, comments, config, deps, lint, source

EXAMPLE = "example"  # the metadata key of a cell that runs an example: its name
GUARDS = "guards"  # the metadata key of the hidden guard after it: the same name
HIDDEN = {"tags": ["remove-cell"]}
SETUP = "# this page's inputs: {fingerprint} (execbook.deps)\nimport execbook.kernel as _book\n_book.begin()"
KEYS: dict[str, str] = {}  # each page's fingerprint, computed once in a build, given to its Sphinx processes
KEYS_ENV = "BOOK_PAGE_KEYS"


class PageError(ValueError):
    """A page that execbook.lint refuses (a broken fence or cell), or that has no title."""


# An example file's magics are commented out, as jupytext writes them ("# %%timeit"); its cell runs them
COMMENTED_MAGIC, MAGIC = re.compile(r"^# (%{1,2}[A-Za-z_])", re.M), re.compile(r"^(%{1,2}[A-Za-z_])", re.M)


def magics_shown(code: str) -> str:
    """An example's code as its cell shows it: its commented magics uncommented."""
    return COMMENTED_MAGIC.sub(r"\1", code)


def magics_commented(code: str) -> str:
    """A cell's code as a plain script has it: its magics commented out again."""
    return MAGIC.sub(r"# \1", code)


is_executed = is_myst_markdown_notebook  # text -> does the page execute code


def executed(language: str) -> dict[str, Path]:
    """docname -> source path of the pages of one language that execute code."""
    pages = source.page_sources(config.DOCS / language)
    return {name: p for name, p in pages.items() if p.suffix == ".md" and is_executed(p.read_text("utf-8"))}


def read(text: str, path: str | Path = "page.md") -> NotebookNode:
    """The page as the book executes and shows it: MyST-NB's notebook, each `:load:` made `:example:`."""
    path = Path(config.REPO, path)  # relative: to the repository's root (an absolute one stays)
    page = source.parse(text, path, source.shown_path(path))
    problem = next(chain(lint.fence_problems(page), lint.cell_problems(page)), None)
    if problem is not None:
        raise PageError(str(problem))
    lines = text.split("\n")
    for line, name in loaded(page).items():  # a cell's option line, not one a fenced example shows
        lines[line - 1] = re.sub(r"load:.*", f"{EXAMPLE}: {name}", lines[line - 1])
    notebook = read_myst_markdown_notebook("\n".join(lines), config=source.MYST, add_source_map=True)
    # MyST-NB numbers a cell's tokens from its entry in source_map plus one, a Markdown cell's from
    # its first line once its leading blank lines are stripped: each Markdown cell's entry here is
    # the line above its first non-blank one (0-based), so that Sphinx names the author's lines
    starts = notebook.metadata["source_map"]
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "markdown":
            while starts[index] < len(lines) and not lines[starts[index]].strip():
                starts[index] += 1
            starts[index] -= 1
    cells: list[tuple[int, NotebookNode]] = []
    names: list[str] = []
    for start, cell in zip(starts, notebook.cells, strict=True):
        cells.append((start, cell))
        name = cell.metadata.get(EXAMPLE)
        if cell.cell_type != "code" or name is None:
            continue
        names.append(name)
        cell.source = magics_shown(comments.neutral(cases.split(cases.manifest()[name].path)[0])).rstrip("\n")
        if cases.manifest()[name].expect == "raises":
            cell.metadata["tags"] = [*cell.metadata.get("tags", []), "raises-exception"]
        cells.append((start, new_code_cell(f'_book.check("{name}")', metadata={**HIDDEN, GUARDS: name})))
    markdown = (c.source.split("\n") for _, c in cells if c.cell_type == "markdown")
    if not any(text.startswith("# ") for texts in markdown for text in texts):
        raise PageError(f"{Path(path).name}: an executed page needs a # title")
    key = " ".join(names)  # the build's key for these examples (in its Sphinx processes), else computed here
    KEYS[key] = json.loads(os.environ.get(KEYS_ENV) or "{}").get(key) or deps.page_fingerprint(names)
    cells.insert(0, (cells[0][0], new_code_cell(SETUP.format(fingerprint=KEYS[key]), metadata=HIDDEN)))
    notebook.cells = [cell for _, cell in cells]
    notebook.metadata["source_map"] = [start for start, _ in cells]
    return notebook


def loaded(page: source.Source) -> dict[int, str]:
    """line -> the example that the code cell whose `:load:` option it is loads (the file's stem)."""
    return {c.options["load"][0]: Path(c.options["load"][1]).stem for c in page.cells if "load" in c.options}


def notebook(path: str | Path) -> NotebookNode:
    return read(Path(path).read_text("utf-8"), path)


def example_of(notebook: NotebookNode, index: int) -> str | None:
    """The example that cell `index` of a page's notebook runs, or guards; None for a cell of the page's own."""
    metadata = notebook.cells[index].metadata if 0 <= index < len(notebook.cells) else {}
    return metadata.get(EXAMPLE) or metadata.get(GUARDS)


def examples(notebook: NotebookNode) -> list[str]:
    return [c.metadata[EXAMPLE] for c in notebook.cells if EXAMPLE in c.metadata]
