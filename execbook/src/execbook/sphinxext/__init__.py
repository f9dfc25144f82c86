"""The book's Sphinx extension: its parts (bilingual, downloads, links, status), and here each example's
code and traceback in the page's language, the files each executed page depends on (execbook.deps),
each image a link to itself full size (for a phone), and no script a page does not use.

Private Sphinx API, in one place: sphinx.util.nodes._make_id (bilingual.glossary_anchors), the id of
another language's glossary term out of any build (make_id needs the build's environment and document);
tests/test_site.py pins it against the built glossaries' ids."""

import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

from docutils import nodes
from sphinx.util.osutil import relative_uri

from .. import config as book  # not `config`: sphinxext.config's name
from .. import deps, pages
from ..source import parse
from . import bilingual, downloads, links, status
from .words import in_language
from .words import words as ui

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.builders.html import StandaloneHTMLBuilder
    from sphinx.util.typing import ExtensionMetadata


def note_dependencies(app: "Sphinx", docname: str, source: list[str]) -> None:
    if not pages.is_executed(source[0]):
        return
    names = list(pages.loaded(parse(source[0])).values())
    made_by = {Path(__file__), Path(downloads.__file__), Path(links.__file__)}  # its comments, its downloads
    for dependency in sorted(deps.page_dependencies(names) | made_by | {book.MANIFEST}):
        app.env.note_dependency(str(dependency))


def executed_again(app: "Sphinx", env: Any, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """The executed pages whose execution in the cache is not the one Sphinx read: read again."""
    from jupyter_cache import get_cache
    from myst_nb.sphinx_ import NbMetadataCollector

    records = get_cache(str(book.EXECUTION_CACHE)).list_cache_records()
    again = []
    for docname in env.all_docs:
        read = NbMetadataCollector.get_exec_data(env, docname)
        ends = tuple(f"/{language}/{docname}.md" for language in book.LANGUAGES)
        if read and {r.created.timestamp() for r in records if r.uri.endswith(ends)} != {read.get("mtime")}:
            again.append(docname)
    return again


def comments_in_language(app: "Sphinx", doctree: nodes.document) -> None:
    """Each example's code, traceback and stderr as the page's language shows them (words.in_language)."""
    for cell in doctree.findall(lambda n: isinstance(n, nodes.container) and n.get("nb_element") == "cell_code"):
        name = cell["cell_metadata"].get(pages.EXAMPLE)
        for block in cell.findall(nodes.literal_block) if name else []:
            code = block.parent.get("nb_element") == "cell_code_source"
            part = "code" if code else next((c for c in ("traceback", "stderr") if c in block["classes"]), None)
            if part:
                block.children = [nodes.Text(in_language(name, app.config.language, part, block.astext()))]
                block.rawsource = block.astext()


# The theme's Font Awesome script, which no page links (templates/static/webpack-macros.html leaves it out)
UNPUBLISHED = "_static/scripts/fontawesome.js"


def unpublish_unused_scripts(app: "Sphinx", exception: Exception | None) -> None:
    if not exception and app.builder.format == "html":
        for leftover in Path(app.builder.outdir).glob(UNPUBLISHED + "*"):
            leftover.unlink()


def link_images(app: "Sphinx", doctree: nodes.document, docname: str) -> None:
    """Each image a link to itself, full size: Sphinx's html_scaled_image_link, for every image."""
    if app.builder.format != "html":
        return
    builder = cast("StandaloneHTMLBuilder", app.builder)
    folder = relative_uri(builder.get_target_uri(docname), builder.imagedir)
    title = ui(app.config.language)["full_size"]
    for image in list(doctree.findall(nodes.image)):
        if isinstance(image.parent, nodes.reference) or image["uri"] not in app.env.images:
            continue  # already a link, or not an image of the site's (a remote one)
        href = posixpath.join(folder, quote(app.env.images[image["uri"]][1]))  # where Sphinx copies it
        link = nodes.reference("", "", refuri=href, reftitle=title, internal=True, classes=["book-full-size"])
        image.replace_self(link)
        link.append(image)


def setup(app: "Sphinx") -> "ExtensionMetadata":
    for part in (bilingual, downloads, links, status):
        part.setup(app)
    app.add_config_value("book_fingerprinted", [], "env")  # sphinxext.config: the installed releases
    app.connect("source-read", note_dependencies)
    app.connect("env-get-outdated", executed_again)
    app.connect("doctree-read", comments_in_language)
    app.connect("build-finished", unpublish_unused_scripts)
    app.connect("doctree-resolved", link_images)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
