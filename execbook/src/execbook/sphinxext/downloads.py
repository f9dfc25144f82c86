"""What a reader downloads from an executed page (CONTRIBUTING.md, "Downloads"), made when Sphinx writes
it: the page as Markdown cells (`Markdown`) around the executed notebook's code cells, without the
book's hidden cells, glue records or run stamp, so two builds of one commit write the same bytes;
the script (jupytext's percent format) runs an expected-error cell inside try/except. Files:
<outdir>/_downloads/<page>.ipynb and .py, and the Colab notebook in docs/_build/colab/<language>/."""

import ast
import base64
import copy
import html
import re
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import jupytext
import nbformat
from docutils import nodes
from jupyter_cache import get_cache
from myst_nb.core.utils import coalesce_streams
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.locale import admonitionlabels

from .. import cases, config, gluereport
from ..pages import EXAMPLE, magics_commented
from . import links as reader_links
from .words import in_language
from .words import words as ui

FOLDER = "_downloads"
REMOVE_OUTPUT, RAISES = "remove-output", "raises-exception"
JUPYTEXT = {"notebook_metadata_filter": "-all", "comment_magics": False}  # no header; magics commented out already
SKIPPED = (nodes.comment, nodes.substitution_definition, nodes.system_message)


class Markdown:
    """A resolved page as `cells`: Markdown strings and ints (a code cell's index in the notebook);
    `attachments`: a Markdown cell's position -> its images; `headings`: a code cell -> its section's title."""

    def __init__(self, page_url: str, srcdir: Path):
        self.page_url, self.srcdir = page_url, srcdir  # the images' paths are relative to srcdir
        self.cells: list[str | int] = []
        self.attachments: dict[int, dict] = {}
        self.headings: dict[int, str] = {}
        self._lines: list[str] = []
        self._images: dict[str, dict] = {}  # those of the Markdown cell being written
        self._depth = 0
        self._heading = ""

    def render(self, document: nodes.document) -> "Markdown":
        self.blocks(document.children, "")
        self._flush()
        return self

    def _flush(self) -> None:
        if text := re.sub(r"\n{3,}", "\n\n", "\n".join(self._lines)).strip("\n"):
            if self._images:
                self.attachments[len(self.cells)] = dict(sorted(self._images.items()))
            self.cells.append(text)
        self._lines, self._images = [], {}

    def _emit(self, text: str, indent: str) -> None:
        """text's lines under indent: a list item's spaces, or a quote's "> " (on a blank line too)."""
        self._lines += [indent + line if line else indent.rstrip() for line in text.split("\n")] + [indent.rstrip()]

    def blocks(self, children: list, indent: str) -> None:
        for child in children:
            self.block(child, indent)

    def block(self, node: nodes.Node, indent: str) -> None:
        if isinstance(node, SKIPPED) or isinstance(node, nodes.raw) and node.get("format") != "html":
            return
        if isinstance(node, nodes.Element) and "no-search" in node["classes"]:
            return  # the run stamp: the build's date and time, page furniture
        if isinstance(node, nodes.container) and node.get("nb_element") == "cell_code":
            self._flush()
            self.cells.append(int(node["cell_index"]))
            self.headings[int(node["cell_index"])] = self._heading
            return
        if isinstance(node, nodes.section):
            self._depth += 1
            self.blocks(node.children, indent)
            self._depth -= 1
        elif isinstance(node, nodes.title):
            self._heading = self.inline(node)
            self._emit("#" * max(self._depth, 1) + " " + self._heading, indent)
        elif isinstance(node, nodes.target) and node.get("refid"):
            self._emit(f'<a id="{node["refid"]}"></a>', indent)
        elif isinstance(node, (nodes.paragraph, nodes.caption)):
            self._emit(self.inline(node), indent)
        elif isinstance(node, nodes.literal_block):
            self._emit(fenced(node.astext(), node.get("language", "").replace("ipython3", "python")), indent)
        elif isinstance(node, nodes.raw):
            self._emit(node.astext(), indent)
        elif isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
            for number, item in enumerate(node.children, 1):
                marker = f"{number}. " if isinstance(node, nodes.enumerated_list) else "- "
                self.item(item, marker, indent)
        elif isinstance(node, nodes.definition_list):
            for item in node.children:
                term = self.inline(item.next_node(nodes.term))
                self.item(item.next_node(nodes.definition), "- ", indent, lead=f"**{term}**: ")
        elif isinstance(node, nodes.Admonition):
            title = node.next_node(nodes.title)
            heading = self.inline(title) if title else str(admonitionlabels.get(node.tagname, node.tagname))
            self._emit(f"**{heading}**", indent + "> ")
            self.blocks([c for c in node.children if not isinstance(c, nodes.title)], indent + "> ")
            if self._lines:  # (none: a code cell in the quote was its last block)
                self._lines[-1] = indent.rstrip()  # the blank line after it ends the quote
        elif node.tagname == "dropdown_main":
            summary = html_inline(node.children[0]) if node.children else ""
            self._emit(f"<details><summary>{summary}</summary>", indent)
            self.blocks(node.children[1:], indent)
            self._emit("</details>", indent)
        elif isinstance(node, nodes.container) and "sphinx-tabs" in node["classes"]:
            titles = [self.inline(tab) for tab in node.findall(lambda n: n.tagname == "button")]
            panels = [c for c in node.children if "sphinx-tabs-panel" in c.get("classes", [])]
            for title, panel in zip(titles, panels, strict=False):
                self._emit(f"**{title}**", indent)
                self.blocks(panel.children, indent)
        elif isinstance(node, nodes.transition):
            self._emit("---", indent)
        elif isinstance(node, nodes.image):
            self.image(node, indent)
        elif isinstance(node, nodes.table):
            self._emit(table(node, self), indent)
        elif isinstance(node, nodes.math_block):
            self._emit(f"$$\n{node.astext()}\n$$", indent)
        elif isinstance(node, nodes.Element):  # containers, figures, tab panels, glossaries: their content
            self.blocks(node.children, indent)

    def item(self, item: nodes.Element, marker: str, indent: str, lead: str = "") -> None:
        """A list item: its blocks indented under the marker, the first line after it (and lead)."""
        start = len(self._lines)
        self.blocks(item.children, indent + " " * len(marker))
        if len(self._lines) > start:
            self._lines[start] = indent + marker + lead + self._lines[start][len(indent) + len(marker) :]

    def image(self, node: nodes.image, indent: str) -> None:
        path = (self.srcdir / node.get("candidates", {}).get("*", node["uri"])).resolve()  # uri: the output's
        mime = "image/svg+xml" if path.suffix == ".svg" else f"image/{path.suffix.lstrip('.')}"
        self._images[path.name] = {mime: base64.b64encode(path.read_bytes()).decode()}
        alt = node.get("alt", "").replace("[", "(").replace("]", ")")
        self._emit(f"![{alt}](attachment:{path.name})", indent)

    def inline(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.Text):
            return re.sub(r"([\\`*_\[\]<])", r"\\\1", node.astext())
        if isinstance(node, nodes.literal):
            return code_span(node.astext())
        if isinstance(node, nodes.math):
            return f"${node.astext()}$"
        if isinstance(node, (nodes.raw, nodes.image)):
            return ""  # an icon in a title
        text = "".join(self.inline(child) for child in node.children)
        if isinstance(node, nodes.emphasis):
            return f"*{text}*"
        if isinstance(node, nodes.strong):
            return f"**{text}**"
        if isinstance(node, nodes.reference):
            target = "#" + node["refid"] if node.get("refid") else node.get("refuri", "")
            return (
                f"[{text}]({target if target.startswith('#') else urljoin(self.page_url, target)})" if target else text
            )
        return text


def html_inline(node: nodes.Node) -> str:
    """Inline content as HTML, for an element whose text Markdown does not render (a <summary>)."""
    if isinstance(node, nodes.Text):
        return html.escape(node.astext(), quote=False)
    if isinstance(node, nodes.literal):
        return f"<code>{html.escape(node.astext(), quote=False)}</code>"
    if isinstance(node, (nodes.raw, nodes.image)):
        return ""
    return "".join(html_inline(child) for child in node.children)


def _ticks(text: str, least: int) -> str:
    """The shortest run of at least `least` backticks that text does not hold."""
    return "`" * next(n for n in range(least, len(text) + least + 1) if "`" * n not in text)


def code_span(text: str) -> str:
    ticks, pad = _ticks(text, 1), " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fenced(text: str, language: str = "") -> str:
    fence = _ticks(text, 3)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def table(node: nodes.table, page: Markdown) -> str:
    rows = [
        [page.inline(entry).replace("|", "\\|").replace("\n", " ") for entry in row.findall(nodes.entry)]
        for row in node.findall(nodes.row)
    ]
    if not rows:
        return ""
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    head = lines.pop(0) if node.next_node(nodes.thead) else "|" + " |" * len(rows[0])  # Markdown needs a head
    return "\n".join([head, "|" + "---|" * len(rows[0]), *lines])


def tags(cell: Any) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def read_files(notebook: Any) -> dict[str, str]:
    """{path: text} of each example's manifest `reads` that its shown code names (the path or the file's
    name, in a string), in page order: the files the code reads where it runs."""
    found: dict[str, str] = {}
    for cell in notebook.cells:
        name = cell.get("metadata", {}).get(EXAMPLE)
        if cell.cell_type != "code" or name not in cases.manifest():
            continue
        named = {n.value for n in ast.walk(ast.parse(magics_commented(cell.source))) if isinstance(n, ast.Constant)}
        for read in cases.manifest()[name].reads:
            path = config.REPO / read
            if path.is_file() and ({read, path.name} & named):
                found[read] = path.read_text(encoding="utf-8")
    return found


def files_code(files: dict[str, str], language: str) -> str:
    """The code that writes the read_files where they are missing (never over a reader's own file)."""
    words = ui(language)["files"]
    texts = [
        f'"""\\\n{text}"""' if '"""' not in text and "\\" not in text and text.endswith("\n") else repr(text)
        for text in files.values()
    ]
    return "\n".join(
        [
            *(f"# {line}" for line in words.split("\n")),
            "from pathlib import Path",
            "",
            "FILES = {",
            *(f"    {path!r}: {text}," for path, text in zip(files, texts, strict=True)),
            "}",
            "for path, text in FILES.items():",
            "    if not Path(path).exists():",
            "        Path(path).parent.mkdir(parents=True, exist_ok=True)",
            '        Path(path).write_text(text, encoding="utf-8")',
        ]
    )


def notebook_download(page: Markdown, notebook: Any, title: str, language: str, colab: bool = False) -> str:
    """The executed notebook a reader downloads, as .ipynb text; colab: with the install cell (links.INSTALL)."""
    cells = []
    for position, cell in enumerate(page.cells):
        if isinstance(cell, str):
            new = nbformat.v4.new_markdown_cell(cell)
            if page.attachments.get(position):
                new.attachments = page.attachments[position]
        else:
            source = notebook.cells[cell]
            kept = [copy.deepcopy(o) for o in source.get("outputs", []) if not gluereport.scrapbook(o)]
            # as the page shows them (nb_merge_streams): nbclient merged each stream's chunks as they came
            outputs = [] if REMOVE_OUTPUT in tags(source) else coalesce_streams(kept)
            new = nbformat.v4.new_code_cell(
                source.source,
                metadata={"tags": tags(source)} if tags(source) else {},
                outputs=outputs,
                execution_count=source.get("execution_count"),
            )
        cells.append(new)
    words = ui(language)["colab_note" if colab else "note"]
    note = words.format(title=title, url=page.page_url, install=reader_links.pip_arguments())
    at = 1 if cells and cells[0].cell_type == "markdown" else 0
    first = [nbformat.v4.new_markdown_cell(note)]
    if colab and (install := reader_links.install_cell()):
        first.append(nbformat.v4.new_code_cell(install))
    if files := read_files(notebook):
        first.append(nbformat.v4.new_code_cell(files_code(files, language)))
    cells[at:at] = first
    for number, cell in enumerate(cells, 1):
        cell.id = f"cell-{number}"
    about = {key: dict(notebook.metadata[key]) for key in ("kernelspec", "language_info") if key in notebook.metadata}
    about["kernelspec"] = dict(about.get("kernelspec", {}), language="python")
    out = nbformat.v4.new_notebook(cells=cells, metadata=about)
    nbformat.validate(out)
    return nbformat.writes(out) + "\n"


def _string_continuations(code: str) -> set[int]:
    """The lines (1-based) that continue a multi-line string: indenting them would change the string."""
    inside: set[int] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and isinstance(getattr(node, "value", ""), str):
            inside.update(range(node.lineno + 1, (node.end_lineno or node.lineno) + 1))
    return inside


def expected_error_block(code: str, language: str) -> str:
    """A cell that raises on purpose as script code: inside try/except, it prints the error and goes on."""
    words, keep = ui(language), _string_continuations(code)
    body = [
        line if number in keep or not line.strip() else "    " + line
        for number, line in enumerate(code.rstrip("\n").split("\n"), 1)
    ]
    block = [
        f"# {words['lesson']}",
        "try:",
        *body,
        "except Exception as error:",
        f'    print({words["expected"]!r}, f"{{type(error).__name__}}: {{error}}")',
        "else:",
        f"    print({words['not_raised']!r})",
    ]
    wrapped = ast.parse("\n".join(block)).body[0]
    assert isinstance(wrapped, ast.Try) and ast.dump(ast.parse(code)) == ast.dump(ast.Module(wrapped.body, [])), (
        "wrapping the cell in try/except changed its code"
    )
    return "\n".join(block)


def script_download(page: Markdown, notebook: Any, title: str, language: str) -> str:
    """The page's code as a .py script in jupytext's percent format, each section's first cell titled."""
    header = ui(language)["script_header"].format(title=title, url=page.page_url, install=reader_links.pip_arguments())
    files = read_files(notebook)
    cells = [nbformat.v4.new_code_cell(files_code(files, language))] if files else []
    section = None
    for index in (c for c in page.cells if isinstance(c, int)):
        cell, heading = notebook.cells[index], page.headings[index] or title
        if cell.source.strip():
            code = magics_commented(cell.source.rstrip("\n"))  # before try/except may wrap it: not by jupytext
            code = expected_error_block(code, language) if RAISES in tags(cell) else code
            titled = {"title": plain(heading)} if heading != section else {}
            cells.append(nbformat.v4.new_code_cell(code, metadata=titled))
            section = heading
    script = jupytext.writes(nbformat.v4.new_notebook(cells=cells, metadata={"jupytext": JUPYTEXT}), fmt="py:percent")
    return "".join(f"# {line}\n" for line in header.split("\n")) + "\n\n" + script


def plain(markdown: str) -> str:
    """Inline Markdown as plain text: links as their text, escapes and code marks removed."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return re.sub(r"\\(.)", r"\1", text.replace("`", ""))


def executed_notebook(app: Sphinx, pagename: str) -> Any:
    """The page's notebook with this build's outputs, or None if the page executes nothing."""
    from myst_nb.sphinx_ import NbMetadataCollector

    if NbMetadataCollector.get_exec_data(app.env, pagename) is None:
        return None
    settings = app.env.mystnb_config  # type: ignore[attr-defined] # MyST-NB sets it at run time
    path = Path(app.outdir).parent.joinpath(settings.output_folder, *f"{pagename}.ipynb".split("/"))
    try:
        _, merged = get_cache(settings.execution_cache_path).merge_match_into_notebook(
            nbformat.read(path, as_version=4), cell_meta=()
        )
    except KeyError:
        raise ExtensionError(
            f"downloads: {pagename} has no executed notebook in the execution cache "
            f"({settings.execution_cache_path}); rebuild from clean"
        ) from None
    language = app.config.language
    for cell in merged.cells:  # as the page shows them (words.in_language)
        name = cell.get("metadata", {}).get(EXAMPLE)
        if name in cases.manifest():
            cell.source = in_language(name, language, "code")
            for output in cell.outputs:
                if output.output_type == "error":
                    output.traceback = [in_language(name, language, "traceback", t) for t in output.traceback]
                elif output.get("name") == "stderr":
                    output.text = in_language(name, language, "stderr", output.text)
    return merged


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def write_downloads(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """The page's menu: its downloads and "open in Colab" (an executed page), then its source."""
    if app.builder.format != "html" or doctree is None:
        return
    language = app.config.language
    words, links = ui(language), []
    if (notebook := executed_notebook(app, pagename)) is not None:
        page = Markdown(config.SITE_URL + f"{language}/{pagename}.html", Path(app.srcdir)).render(doctree)
        title = plain(page.inline(doctree.next_node(nodes.title)))
        folder = Path(app.outdir, FOLDER, *pagename.split("/")).parent
        name, up = pagename.rsplit("/", 1)[-1], "../" * pagename.count("/")
        for suffix, make, label in (
            (".ipynb", notebook_download, words["notebook"]),
            (".py", script_download, words["script"]),
        ):
            write(folder / f"{name}{suffix}", make(page, notebook, title, language))
            links.append({"text": label, "href": f"{up}{FOLDER}/{pagename}{suffix}", "filename": f"{name}{suffix}"})
        write(reader_links.colab_file(language, pagename), notebook_download(page, notebook, title, language, True))
        links.append({"text": words["colab"], "href": reader_links.colab_url(language, pagename)})
    source = Path(app.env.doc2path(pagename)).relative_to(app.srcdir).as_posix()  # in docs/<language>/
    text = words["source"].format(suffix=Path(source).suffix)
    links.append({"text": text, "href": reader_links.source_url(language, source)})
    label = words["menu_label" if notebook is not None else "source_label"]
    context["book_downloads"] = {"menu": words["menu"], "label": label, "links": links}


def setup(app: Sphinx) -> None:
    app.connect("html-page-context", write_downloads)
