"""The book's Sphinx extension: its parts (bilingual, downloads, links, status), and here: each
example's code and traceback in the page's language (execbook.comments), the files each executed
page depends on (execbook.deps: editing one re-reads the pages that use it), each image a link to
itself, full size (a phone's reader opens it and zooms in), and no script a page does not use.
"""

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes

from .. import cases, comments, deps, pages
from ..config import EXECUTION_CACHE, LANGUAGES, MANIFEST  # not `config`: sphinxext.config's name
from . import bilingual, downloads, links, status
from .words import words as ui

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata


def note_dependencies(app: "Sphinx", docname: str, source: list[str]) -> None:
    if not pages.is_executed(source[0]):
        return
    names = [Path(m[2]).stem for m in pages.LOAD.finditer(source[0])]
    made_by = {Path(__file__), Path(downloads.__file__), Path(links.__file__)}  # its comments, its downloads
    for dependency in sorted(deps.page_dependencies(names) | made_by | {MANIFEST}):
        app.env.note_dependency(str(dependency))


def executed_again(app: "Sphinx", env: Any, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """The executed pages whose execution in the cache is not the one Sphinx read (executed again,
    their sources unchanged): read again, so that the site publishes what the cache holds."""
    from jupyter_cache import get_cache
    from myst_nb.sphinx_ import NbMetadataCollector

    records = get_cache(str(EXECUTION_CACHE)).list_cache_records()
    again = []
    for docname in env.all_docs:
        read = NbMetadataCollector.get_exec_data(env, docname)
        ends = tuple(f"/{language}/{docname}.md" for language in LANGUAGES)
        if read and {r.created.timestamp() for r in records if r.uri.endswith(ends)} != {read.get("mtime")}:
            again.append(docname)
    return again


def comments_in_language(app: "Sphinx", doctree: nodes.document) -> None:
    """The code of each example a page shows, and the frames of its traceback, with the comments of
    the page's language (execbook.comments: the notebook executed for every language holds none)."""
    for cell in doctree.findall(lambda n: isinstance(n, nodes.container) and n.get("nb_element") == "cell_code"):
        name = cell["cell_metadata"].get(pages.EXAMPLE)
        if name is None:
            continue
        text = cases.split(cases.manifest()[name].path)[0]
        for block in cell.findall(nodes.literal_block):
            if block.parent.get("nb_element") == "cell_code_source":
                shown = pages.magics_shown(comments.shown(text, app.config.language)).rstrip("\n")
            elif "traceback" in block["classes"]:
                shown = comments.in_traceback(block.astext(), text, app.config.language)
            else:
                continue
            block.children = [nodes.Text(shown)]
            block.rawsource = shown


def copy_mystnb_stylesheet(app: "Sphinx") -> None:
    """Sphinx links a stylesheet with a checksum only when the file is already in the output folder
    as it writes a page; MyST-NB copies its own at the end. Copied first, every build links it alike."""
    if app.builder.format != "html":
        return
    from myst_nb.sphinx_ext import add_global_html_resources

    (Path(app.builder.outdir) / "_static").mkdir(parents=True, exist_ok=True)
    add_global_html_resources(app, None)


# Scripts the theme puts on every page that the book's pages do not use (a page's weight, for a
# reader on a phone): Font Awesome's script (1.5 MB, more than half of a page) only redraws the
# icons as SVG, which the theme's stylesheet already draws with the Font Awesome web font; the
# search scripts serve search-as-you-type, which is off (the search page loads its own).
UNUSED_SCRIPTS = (
    "_static/scripts/fontawesome.js",
    "_static/searchtools.js",
    "_static/language_data.js",
    "searchindex.js",
)
UNPUBLISHED = ("_static/scripts/fontawesome.js",)  # no page loads it: not published at all
SEARCH_PAGE = "search.html"


def script_tag(script: str) -> re.Pattern[str]:
    return re.compile(rf'[ \t]*<script\b[^>]*\bsrc="(?:\.\./)*{re.escape(script)}(?:\?[^"]*)?"[^>]*></script>\n?')


def drop_unused_scripts(app: "Sphinx", exception: Exception | None) -> None:
    """Every page written without the scripts it does not use, and the unused files unpublished."""
    if exception or app.builder.format != "html":
        return
    out = Path(app.builder.outdir)
    for page in out.rglob("*.html"):
        if "_static" in page.relative_to(out).parts:
            continue  # the theme's own template files, which no page loads
        # the search page uses the search scripts
        unused = UNPUBLISHED if page.relative_to(out).as_posix() == SEARCH_PAGE else UNUSED_SCRIPTS
        text = page.read_text(encoding="utf-8")
        kept = text
        for tag in map(script_tag, unused):
            kept = tag.sub("", kept)
        if kept != text:
            page.write_text(kept, encoding="utf-8")
    for script in UNPUBLISHED:
        for leftover in out.glob(script + "*"):
            leftover.unlink()


IMAGE = re.compile(r'<img\b[^>]*\bsrc="([^"]*_images/[^"]+)"[^>]*>')


def link_images(
    app: "Sphinx", pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    """Each image of a page (a figure, a plot in an output) a link to itself, full size."""
    title = ui(app.config.language)["full_size"]

    def link(image: re.Match[str]) -> str:
        before = image.string[: image.start()]
        if before.rfind("<a ") > before.rfind("</a>"):
            return image[0]  # already inside a link
        return f'<a class="book-full-size" href="{image[1]}" title="{title}">{image[0]}</a>'

    if context.get("body"):
        context["body"] = IMAGE.sub(link, context["body"])


def setup(app: "Sphinx") -> "ExtensionMetadata":
    for part in (bilingual, downloads, links, status):
        part.setup(app)
    app.add_config_value("book_fingerprinted", "", "env")  # sphinxext.config: the installed releases
    app.connect("source-read", note_dependencies)
    app.connect("env-get-outdated", executed_again)
    app.connect("doctree-read", comments_in_language)
    app.connect("builder-inited", copy_mystnb_stylesheet)
    app.connect("build-finished", drop_unused_scripts)
    app.connect("html-page-context", link_images)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
