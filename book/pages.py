"""The book's executed pages as MyST-NB reads them, with what the case manifest adds.

An executed page (`file_format: mystnb`) only says which examples it loads (`:load:`). Before
MyST-NB reads it, docs/_ext/casecells.py replaces its text with `with_cases(text, path)`:
- under the title, a hidden setup cell that glues the run stamp, shown right below it (a pasted
  output, not a cell's: the stamp is page furniture, not an output of the lesson); the cell names
  the fingerprint of
  everything the page depends on (book.deps), so the execution cache re-runs the page exactly
  when one of those files, or the installed torch, changes; and it promises the outcomes of the
  cases the page checks (book.kernel.will_check), for a page read meanwhile in another process;
- the cell of an example that examples/cases.toml says raises gets the raises-exception tag;
- after every cell that loads an example, a hidden guard that judges what the cell did against
  the manifest (book.kernel.check) and fails the build when it differs.
Cells are found with MyST-NB's own reader; the tests read pages through `notebook` too.
"""

from pathlib import Path

from myst_nb.core.read import is_myst_markdown_notebook, read_myst_markdown_notebook
from myst_parser.config.main import MdParserConfig

from . import cases, deps

MYST_EXTENSIONS = ["colon_fence", "dollarmath", "deflist", "substitution"]  # the book's (conf_shared)


# The front matter of an executed page (MyST-NB runs a Markdown page that starts with it).
EXECUTED_PAGE_FRONT_MATTER = """---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
---
"""


class PageError(ValueError):
    """A page that loads something the manifest does not declare, or tags a case itself."""


SETUP = ["{fence}{{code-cell}} ipython3", ":tags: [remove-cell]",
         "# this page's inputs: {fingerprint} (book.deps)", "import book.kernel as _book",
         "_book.stamp()", "_book.will_check({names!r})", "{fence}", "",
         # the stamp's time is left out of the search index (docs/_ext/reproducible.py)
         "::::{{container}} no-search", "{fence}{{glue:}} book_stamp", "{fence}", "::::"]
GUARD = ["{fence}{{code-cell}} ipython3", ":tags: [remove-cell]", '_book.check("{name}")', "{fence}"]
RAISES_TAG = ":tags: [raises-exception]"


def loaded_examples(text, path, extensions=()):
    """[(line index of the cell's opening fence, example name)] of every cell that loads an example."""
    config = MdParserConfig(enable_extensions=set(extensions))
    try:
        read = read_myst_markdown_notebook(text, config=config, add_source_map=True, path=path)
    except Exception as exc:  # MyST-NB's own: a :load: of a missing file, bad metadata
        raise PageError(f"{Path(path).name}: {exc}") from None
    found = []
    for cell, start in zip(read.cells, read.metadata["source_map"]):
        if cell.cell_type != "code" or "load" not in cell.metadata:
            continue
        target = (Path(path).parent / cell.metadata["load"]).resolve()
        where = f"{Path(path).name}: cell loading {cell.metadata['load']}"
        if target.parent != cases.EXAMPLES or target.stem not in cases.manifest():
            raise PageError(f"{where}: pages load examples/<name>.py files that examples/cases.toml "
                            f"declares; {target.name} is not one")
        if "tags" in cell.metadata and "raises-exception" in cell.metadata["tags"]:
            raise PageError(f"{where}: remove the raises-exception tag; examples/cases.toml declares "
                            f"what {target.stem} does")
        found.append((start - 1, target.stem))
    return found


def _closing_fence(lines, opening):
    fence = lines[opening][:len(lines[opening]) - len(lines[opening].lstrip("`"))]
    for i in range(opening + 1, len(lines)):
        if lines[i].strip() == fence:
            return i, fence
    raise PageError(f"unclosed code cell at line {opening + 1}")


def _add_raises_tag(lines, opening, closing):
    """Tag the cell raises-exception, in its own :tags: line if it has one (e.g. hide-output)."""
    for i in range(opening + 1, closing):
        if not lines[i].startswith(":"):
            break
        if lines[i].startswith(":tags:"):
            tags = lines[i].split(":", 2)[2].strip().strip("[]")
            lines[i] = f":tags: [{', '.join(t.strip() for t in tags.split(',') if t.strip())}, raises-exception]"
            return
    lines.insert(opening + 1, RAISES_TAG)


def _title_line(lines):
    for i, line in enumerate(lines):
        if line.startswith("# "):
            return i
    raise PageError("an executed page needs a # title")


def with_cases(text, path, extensions=()):
    """(the page's text with its setup cell, tags and guards, the examples it loads)."""
    examples = loaded_examples(text, path, extensions)
    names = [name for _, name in examples]
    lines = text.splitlines()
    for opening, name in reversed(examples):
        closing, fence = _closing_fence(lines, opening)
        lines[closing + 1:closing + 1] = [""] + [p.format(fence=fence, name=name) for p in GUARD]
        if cases.manifest()[name].expect == "raises":
            _add_raises_tag(lines, opening, closing)
    fingerprint = deps.fingerprint(deps.page_dependencies(names))
    setup = [p.format(fence="```", fingerprint=fingerprint, names=names) for p in SETUP]
    title = _title_line(lines)
    lines[title + 1:title + 1] = [""] + setup
    return "\n".join(lines) + "\n", names


def notebook(path, extensions=MYST_EXTENSIONS):
    """The page as the book executes it (manifest additions included), read by MyST-NB's reader."""
    text = Path(path).read_text("utf-8")
    if is_myst_markdown_notebook(text):
        text = with_cases(text, path, extensions)[0]
    return read_myst_markdown_notebook(text, config=MdParserConfig(enable_extensions=set(extensions)),
                                       path=path)
