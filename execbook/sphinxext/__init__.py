"""The book's Sphinx extension (listed as "execbook.sphinxext" in execbook/sphinxext/config.py):

- bilingual: the language switcher, hreflang alternates, the site root and sitemap, the mirror check;
- cases: the manifest's setup cell, tags and guards added to each executed page (execbook.pages);
- downloads: each executed page's notebook and script (markdown: MyST made plain Markdown), and the
  page header's menu that offers them;
- links: each page's source in the repository, and the notebook "open in Colab" opens;
- figures: each image a link to itself, full size;
- status: the status page's execution table, and the pages read on every build.
"""

import re
from pathlib import Path
from typing import TYPE_CHECKING

from . import bilingual, cases, downloads, figures, links, status

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


def setup(app: "Sphinx") -> "ExtensionMetadata":
    for part in (bilingual, cases, downloads, figures, links, status):
        part.setup(app)
    app.connect("builder-inited", copy_mystnb_stylesheet)
    app.connect("build-finished", drop_unused_scripts)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
