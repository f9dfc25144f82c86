"""The mirrored language trees: a language switcher on every page (naming the ids both languages
share, so that static/book.js keeps the section in view), hreflang alternates, the site root's
language chooser and sitemap.xml, shared glossary ids, code marked English, MyST-NB's cell toggles
in the page's language. (The mirror check is execbook.lint's.)"""

import html
import posixpath
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from xml.sax.saxutils import escape, quoteattr

from docutils import nodes
from markupsafe import Markup
from sphinx.util.nodes import _make_id

from .. import config, source
from .words import speaks
from .words import words as ui

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.builders.html import StandaloneHTMLBuilder
    from sphinx.domains.std import StandardDomain
    from sphinx.environment import BuildEnvironment
    from sphinx.writers.html5 import HTML5Translator

SITEMAP_GENERATED = ["genindex"]  # the generated pages a search engine is pointed at
SITEMAP_HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
SITEMAP_HEADER += 'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'


def glossary_anchors(docs_dir: str | Path, languages: Collection[str]) -> list[set[str]]:
    """For each term position, its ids in every language: each glossary carries them all (one anchor)."""
    glossaries = [Path(docs_dir) / lang / f"{source.GLOSSARY}.md" for lang in languages]
    entries = [source.glossary_entries(source.read(path)) for path in glossaries]
    return [
        {_make_id(f"term-{term}") for _, term in terms}  # the id Sphinx gives a term (private: __init__.py)
        for pairs in zip(*entries, strict=False)
        for terms in zip(*pairs, strict=False)
    ]


def add_glossary_anchors(app: "Sphinx", doctree: nodes.document, docname: str) -> None:
    """Give each glossary term the ids of its counterparts in the other languages too."""
    if docname != source.GLOSSARY:
        return
    pairs = {anchor: ids for ids in glossary_anchors(config.DOCS, config.LANGUAGES) for anchor in ids}
    for term in doctree.findall(nodes.term):
        for anchor in list(term["ids"]):
            term["ids"].extend(sorted(pairs.get(anchor, set()) - set(term["ids"])))


def relocate_execution_folder(app: "Sphinx") -> None:
    """MyST-NB's executed notebooks go to docs/_build/jupyter_execute/<lang>, out of the site."""
    env: Any = app.env  # MyST-NB adds its mystnb_config to the environment
    folder = str(config.BUILD / "jupyter_execute" / app.config.language)
    env.mystnb_config = env.mystnb_config.copy(output_folder=folder)


def shared_anchors(env: "BuildEnvironment", pagename: str) -> str:
    """The ids of the page's explicit labels: unlike a heading's, the same in every language."""
    std = cast("StandardDomain", env.get_domain("std"))
    anchors = {labelid for docname, labelid in std.anonlabels.values() if docname == pagename and labelid}
    if pagename == source.GLOSSARY:
        anchors.update(*glossary_anchors(config.DOCS, config.LANGUAGES))
    return " ".join(sorted(anchors))


def alternates(pagename: str, suffix: str = ".html") -> list[tuple[str, str]]:
    """[(hreflang, absolute URL)] of one page: each language's, then x-default (the root page)."""
    base = config.SITE_URL
    return [(lang, f"{base}{lang}/{pagename}{suffix}") for lang in config.LANGUAGES] + [("x-default", base)]


def alternate_tags(links: Iterable[tuple[str, str]], slash: str = " /") -> str:
    return "\n".join(f'<link rel="alternate" hreflang="{lang}" href="{escape(url)}"{slash}>' for lang, url in links)


def sitemap(pagenames: Iterable[str], suffix: str = ".html") -> str:
    """sitemap.xml: the root page, then every page of every language, each with its hreflang alternates.
    No lastmod: two builds of one commit write the same file."""
    entries = [(config.SITE_URL, alternates("index", suffix))]
    for pagename in pagenames:
        links = alternates(pagename, suffix)
        entries += [(url, links) for lang, url in links if lang != "x-default"]
    out = [SITEMAP_HEADER]
    for loc, links in entries:
        out.append(f"  <url>\n    <loc>{escape(loc)}</loc>\n")
        out += [f'    <xhtml:link rel="alternate" hreflang="{lang}" href={quoteattr(url)}/>\n' for lang, url in links]
        out.append("  </url>\n")
    out.append("</urlset>\n")
    return "".join(out)


def write_site_root(app: "Sphinx", exception: Exception | None) -> None:
    """The site root: the language chooser (the book's docs/root/index.html, else the engine's template,
    given {{ alternates }}) and sitemap.xml; every language's build writes the same two files."""
    if exception or app.builder.format != "html":
        return
    from jinja2 import Environment, FileSystemLoader

    root, tags = Path(app.outdir).parent, alternate_tags(alternates("index"), slash="").replace("\n", "\n  ")
    folders = [config.DOCS / "root", Path(__file__).with_name("templates")]  # the book's first
    templates = Environment(loader=FileSystemLoader(folders), autoescape=True, keep_trailing_newline=True)
    page = templates.select_template(["index.html", "book-root.html"])
    chooser = page.render(languages=config.LANGUAGES, titles=config.TITLES, alternates=Markup(tags))
    (root / "index.html").write_text(chooser, encoding="utf-8")
    pages = sorted(app.env.found_docs) + SITEMAP_GENERATED
    suffix = cast("StandaloneHTMLBuilder", app.builder).out_suffix
    (root / "sitemap.xml").write_text(sitemap(pages, suffix), encoding="utf-8")


def add_switcher(
    app: "Sphinx", pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    """The links to the page in the other languages (titled in the page's own) and its hreflang alternates."""
    from babel import Locale

    suffix = cast("StandaloneHTMLBuilder", app.builder).out_suffix
    context["metatags"] = context.get("metatags", "") + "\n" + alternate_tags(alternates(pagename, suffix))
    here, up = app.config.language, "../" * (pagename.count("/") + 1)  # up to the site root (es/, en/)
    names = Locale.parse(speaks(here)).languages  # in the words' language
    context["book_switches"] = [
        {
            "url": posixpath.join(up, lang, pagename + suffix),
            "language": lang,
            "name": name,
            "label": ui(here)["switch"].format(language=names.get(lang, name)),
        }
        for lang, name in config.LANGUAGES.items()
        if lang != here
    ]
    context["book_shared_anchors"] = shared_anchors(app.env, pagename)


CODE_LANGUAGE = "en"  # code, identifiers and outputs stay English in every language's pages


def mark_code_language(app: "Sphinx", doctree: nodes.document, docname: str) -> None:
    """On a page in another language, code blocks and outputs say lang="en" (for screen readers and
    hyphenation): docutils writes a class "language-<code>" as the lang attribute."""
    if app.config.language == CODE_LANGUAGE:
        return
    for node in doctree.findall(nodes.Element):
        if isinstance(node, nodes.literal_block) or "cell_output" in node["classes"]:
            node["classes"].append(f"language-{CODE_LANGUAGE}")


# What a collapsed cell hides, which MyST-NB names in English ("{type}" in its show/hide labels)
CELL_PARTS = ("source", "output", "outputs", "content")


def visit_hidden_cell(self: "HTML5Translator", node: nodes.Element) -> None:
    """MyST-NB's visit_HideCellInput, with what the cell hides and its toggle's label in the page's language."""
    from myst_nb.sphinx_ import visit_HideCellInput

    words, cell = ui(self.config.language), node.parent  # the cell's prompts still hold "{type}"
    shown = cell.get("prompt_show", "")
    part = next((p for p in CELL_PARTS if node["prompt_show"] == shown.replace("{type}", p)), None)
    if part:
        for prompt in ("prompt_show", "prompt_hide"):
            node[prompt] = cell[prompt].replace("{type}", words[f"cell_{part}"])
    start = len(self.body)
    visit_HideCellInput(self, node)
    toggle = self.body.index('<summary aria-label="Toggle hidden content">\n', start)  # MyST-NB's, in English
    self.body[toggle] = f'<summary aria-label="{html.escape(words["cell_toggle"])}">\n'


def setup(app: "Sphinx") -> None:
    from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput

    app.connect("builder-inited", relocate_execution_folder, priority=900)
    app.connect("html-page-context", add_switcher)
    app.connect("doctree-resolved", mark_code_language)
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_HideCellInput))
    app.connect("doctree-resolved", add_glossary_anchors)
    app.connect("build-finished", write_site_root)
