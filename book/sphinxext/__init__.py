"""The book's Sphinx extension (listed as "book.sphinxext" in book/sphinxext/config.py):

- bilingual: the language switcher, hreflang alternates, the site root and sitemap, the mirror check;
- cases: the manifest's setup cell, tags and guards added to each executed page (book.pages);
- downloads: each executed page's notebook and script (markdown: MyST made plain Markdown);
- status: the status page's execution table, and the pages read on every build.
"""

from pathlib import Path
from typing import TYPE_CHECKING

from . import bilingual, cases, downloads, status

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata


def copy_mystnb_stylesheet(app: "Sphinx") -> None:
    """Sphinx links a stylesheet with a checksum only when the file is already in the output folder
    as it writes a page; MyST-NB copies its own at the end. Copied first, every build links it alike."""
    if app.builder.format != "html":
        return
    from myst_nb.sphinx_ext import add_global_html_resources

    (Path(app.builder.outdir) / "_static").mkdir(parents=True, exist_ok=True)
    add_global_html_resources(app, None)


def setup(app: "Sphinx") -> "ExtensionMetadata":
    for part in (bilingual, cases, downloads, status):
        part.setup(app)
    app.connect("builder-inited", copy_mystnb_stylesheet)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
