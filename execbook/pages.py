"""The book's executed pages as the build runs them, with what the case manifest adds.

An executed page (`file_format: mystnb`) only says which examples it loads (`:load:`). Its text is
read as `with_cases(text, path)` makes it, both by the build's first step, which executes it
(execbook.build), and by Sphinx (execbook.sphinxext.cases), which finds the outputs of that execution:
- the cell that loads an example holds what the page shows of it (its file up to its hidden
  checks, execbook.cases.split), and names it (`:example: <name>`, the cell's metadata);
- under the title, a hidden setup cell that glues the run stamp, shown right below it (page
  furniture, not an output of the lesson); the cell names the fingerprint of everything the page
  depends on (execbook.deps), so the page runs again exactly when one of those changes;
- the cell of an example that examples/cases.toml says raises gets the raises-exception tag;
- after every cell that loads an example, a hidden guard that judges what the cell did against
  the manifest (execbook.kernel.check) and fails the build when it differs.
Cells are found with MyST-NB's own reader.
"""

from pathlib import Path

from myst_nb.core.read import is_myst_markdown_notebook, read_myst_markdown_notebook
from myst_parser.config.main import MdParserConfig
from nbformat import NotebookNode

from . import cases, check, config, deps

MYST_EXTENSIONS = ["colon_fence", "dollarmath", "deflist", "substitution"]  # the book's (sphinxext.config)


FRONT_MATTER = check.FRONT_MATTER  # what makes a Markdown page one that executes (MyST-NB)


class PageError(ValueError):
    """A page that loads something the manifest does not declare, or tags a case itself."""


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
GUARDS = "guards"  # the metadata key of the hidden guard after it: the same name


def _read(text: str, path: str | Path) -> NotebookNode:
    config_ = MdParserConfig(enable_extensions=set(MYST_EXTENSIONS))
    try:
        return read_myst_markdown_notebook(text, config=config_, add_source_map=True, path=path)
    except Exception as exc:  # MyST-NB's own: a :load: of a missing file, bad metadata
        raise PageError(f"{Path(path).name}: {exc}") from None


def loaded_examples(text: str, path: str | Path) -> list[tuple[int, str]]:
    """[(line index of the cell's opening fence, example name)] of every cell that loads an example."""
    read = _read(text, path)
    found: list[tuple[int, str]] = []
    for cell, start in zip(read.cells, read.metadata["source_map"], strict=True):
        if cell.cell_type != "code" or "load" not in cell.metadata:
            continue
        target = (Path(path).parent / cell.metadata["load"]).resolve()
        where = f"{Path(path).name}: cell loading {cell.metadata['load']}"
        if target.parent != config.EXAMPLES or target.stem not in cases.manifest():
            raise PageError(
                f"{where}: pages load examples/<name>.py files that examples/cases.toml "
                f"declares; {target.name} is not one"
            )
        if "raises-exception" in cell.metadata.get("tags", []):
            raise PageError(
                f"{where}: remove the raises-exception tag; examples/cases.toml declares what {target.stem} does"
            )
        found.append((start - 1, target.stem))
    return found


def _closing_fence(lines: list[str], opening: int) -> tuple[int, str]:
    fence = lines[opening][: len(lines[opening]) - len(lines[opening].lstrip("`"))]
    for i in range(opening + 1, len(lines)):
        if lines[i].strip() == fence:
            return i, fence
    raise PageError(f"unclosed code cell at line {opening + 1}")


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
    shown = cases.split(cases.manifest()[name].path)[0].rstrip("\n").split("\n")
    if any(line.startswith(lines[closing].strip()) for line in shown):
        raise PageError(f"examples/{name}.py holds a line starting with the cell's fence {lines[closing].strip()}")
    return [lines[opening], *options, *shown, lines[closing]]


def with_cases(text: str, path: str | Path) -> tuple[str, list[str]]:
    """(the page's text with its setup cell, tags and guards, the examples it loads)."""
    expanded, names, _ = expand(text, path)
    return expanded, names


def expand(text: str, path: str | Path) -> tuple[str, list[str], list[int]]:
    """with_cases, and its line map: the source line (1-based) of each line of the expanded text
    (a line the build added counts as the line of the cell or title it belongs to)."""
    examples = loaded_examples(text, path)
    names = [name for _, name in examples]
    lines = text.splitlines()
    origin = list(range(1, len(lines) + 1))
    for opening, name in reversed(examples):
        closing, fence = _closing_fence(lines, opening)
        cell = _example_cell(lines, opening, closing, name) + [""] + [p.format(fence=fence, name=name) for p in GUARD]
        lines[opening : closing + 1] = cell
        origin[opening : closing + 1] = [opening + 1] * len(cell)
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
        text = with_cases(text, path)[0]
    return read_myst_markdown_notebook(text, config=MdParserConfig(enable_extensions=set(MYST_EXTENSIONS)), path=path)
