"""The book's executed pages as the build runs them, with what the case manifest adds.

An executed page (`file_format: mystnb`) only says which examples it loads (`:load:`). The build's
first step executes it (execbook.build), and Sphinx reads it (execbook.sphinxext), as
`expand(text, path)` makes it:
- the cell that loads an example holds what the page shows of it (its file up to its hidden
  checks, execbook.cases.split), and names it (`:example: <name>`, the cell's metadata);
- under the title, a hidden setup cell that glues the run stamp (shown right below it) and names
  the fingerprint of everything the page depends on (execbook.deps): the page runs again exactly
  when one of those changes;
- the cell of an example that examples/cases.toml says raises gets the raises-exception tag;
- after every cell that loads an example, a hidden guard that judges what the cell did against
  the manifest (execbook.kernel.check) and fails the build when it differs.
"""

import re
from itertools import chain
from pathlib import Path

from myst_nb.core.read import is_myst_markdown_notebook, read_myst_markdown_notebook
from myst_parser.config.main import MdParserConfig
from nbformat import NotebookNode

from . import cases, check, deps

MYST_EXTENSIONS = ["colon_fence", "dollarmath", "deflist", "substitution"]  # the book's (sphinxext.config)


class PageError(ValueError):
    """A page that execbook.check refuses (a broken fence or cell), or that has no title."""


SETUP = [
    "{fence}{{code-cell}} ipython3",
    ":tags: [remove-cell]",
    "# this page's inputs: {fingerprint} (execbook.deps)",
    "import execbook.kernel as _book",
    "_book.stamp()",
    "{fence}",
    "",
    # the stamp's time is left out of the search index (Sphinx skips class no-search)
    "::::{{container}} no-search",
    "{fence}{{glue:}} book_stamp",
    "{fence}",
    "::::",
]
GUARD = ["{fence}{{code-cell}} ipython3", ":tags: [remove-cell]", ":guards: {name}", '_book.check("{name}")', "{fence}"]
EXAMPLE = "example"  # the metadata key of a cell that runs an example: its name
# An IPython magic in an example file is commented out, as jupytext writes it in a script
# ("# %load_ext x", "# %%timeit"): the file stays Python; its cell shows the magic, and runs it.
COMMENTED_MAGIC, MAGIC = re.compile(r"^# (%{1,2}[A-Za-z_])", re.M), re.compile(r"^(%{1,2}[A-Za-z_])", re.M)


def magics_shown(code: str) -> str:
    """An example's code as its cell shows it: its commented magics uncommented."""
    return COMMENTED_MAGIC.sub(r"\1", code)


def magics_commented(code: str) -> str:
    """A cell's code as a plain script has it: its magics commented out again."""
    return MAGIC.sub(r"# \1", code)


GUARDS = "guards"  # the metadata key of the hidden guard after it: the same name


def _example_cell(lines: list[str], opening: int, closing: int, name: str) -> list[str]:
    """The cell's lines: its options (`:load:` made `:example: <name>`, the raises-exception tag where
    the manifest says it raises), then what the page shows of the example."""
    options = [line for line in lines[opening + 1 : closing] if line.startswith(":")]
    options = [f":{EXAMPLE}: {name}" if line.startswith(":load:") else line for line in options]
    if cases.manifest()[name].expect == "raises":
        tags = next((i for i, line in enumerate(options) if line.startswith(":tags:")), None)
        if tags is None:
            options.append(":tags: [raises-exception]")
        else:
            found = [t.strip() for t in options[tags].split(":", 2)[2].strip().strip("[]").split(",") if t.strip()]
            options[tags] = f":tags: [{', '.join(found + ['raises-exception'])}]"
    shown = magics_shown(cases.split(cases.manifest()[name].path)[0]).rstrip("\n").split("\n")
    if any(line.startswith(lines[closing].strip()) for line in shown):
        raise PageError(f"examples/{name}.py holds a line starting with the cell's fence {lines[closing].strip()}")
    return [lines[opening], *options, *shown, lines[closing]]


def expand(text: str, path: str | Path) -> tuple[str, list[str], list[int]]:
    """(the page's text with its setup cell, tags and guards, the examples it loads, its line map:
    the source line (1-based) of each line of the expanded text; a line the build added counts as
    the line of the cell or title it belongs to). The page is read as execbook.check reads it, and
    refused (PageError) where the check finds a broken fence or cell."""
    source = check.parse(text, Path(path), check.shown_path(Path(path)))
    problem = next(chain(check.fence_problems(source), check.cell_problems(source)), None)
    if problem is not None:
        raise PageError(str(problem))
    examples = [(c, check.example_of(source, c).stem) for c in source.cells if "load" in c.options]
    lines = text.splitlines()
    origin = list(range(1, len(lines) + 1))
    for cell, name in reversed(examples):
        opening, closing = cell.opening - 1, (cell.closing or 0) - 1
        guard = [p.format(fence=cell.marker, name=name) for p in GUARD]
        lines[opening : closing + 1] = new = [*_example_cell(lines, opening, closing, name), "", *guard]
        origin[opening : closing + 1] = [opening + 1] * len(new)
    names = [name for _, name in examples]
    title = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
    if title is None:
        raise PageError(f"{Path(path).name}: an executed page needs a # title")
    setup = [p.format(fence="```", fingerprint=digest) for digest in [deps.page_fingerprint(names)] for p in SETUP]
    lines[title + 1 : title + 1] = [""] + setup
    origin[title + 1 : title + 1] = [origin[title]] * (len(setup) + 1)
    return "\n".join(lines) + "\n", names, origin


def source_line(path: str | Path, line: int) -> int:
    """The line of an executed page's source that line `line` of its expanded text came from."""
    origin = expand(Path(path).read_text("utf-8"), path)[2]
    return origin[min(max(line, 1), len(origin)) - 1] if origin else line


def is_executed(text: str) -> bool:
    return is_myst_markdown_notebook(text)


def notebook(path: str | Path) -> NotebookNode:
    """The page as the book executes it (manifest additions included), read by MyST-NB's reader."""
    text = Path(path).read_text("utf-8")
    if is_myst_markdown_notebook(text):
        text = expand(text, path)[0]
    return read_myst_markdown_notebook(text, config=MdParserConfig(enable_extensions=set(MYST_EXTENSIONS)), path=path)
