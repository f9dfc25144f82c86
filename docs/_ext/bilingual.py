"""Sphinx extension for the two mirrored language trees.

- a language switcher on every page, linking to the same page in the other language,
  and <link rel="alternate" hreflang> tags; it names the page's explicit labels, the ids both
  languages share, so that docs/_static/book.js can carry the section in view across;
- the build fails (a warning under -W) when a page or label exists in one tree only;
- MyST-NB's executed notebooks go to docs/_build/jupyter_execute/<lang>, out of the site;
- every executed page must carry the run stamp printed by its setup cell (book.kernel.stamp()).
"""

import posixpath
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

from mirror import mirror_problems

logger = logging.getLogger(__name__)
GENERATED_PAGES = {"genindex", "search", "py-modindex"}
# "Read this page in <other language>", in the page's own language
SWITCH_LABEL = {("es", "en"): "Leer esta página en inglés", ("en", "es"): "Read this page in Spanish"}
STAMP_CLASS = "book-stamp"


def other_languages(config):
    return [lang for lang in config.book_languages if lang != config.book_language]


def relocate_execution_folder(app):
    config = app.env.mystnb_config
    app.env.mystnb_config = config.copy(output_folder=app.config.book_execute_folder)


def check_mirror(app, env):
    docs_dir = Path(app.srcdir).parent
    for problem in mirror_problems(docs_dir, app.config.book_languages):
        logger.warning(f"es/en mirror: {problem}", type="bilingual", subtype="mirror")


def counterpart_exists(app, language, pagename):
    if pagename in GENERATED_PAGES:
        return True
    tree = Path(app.srcdir).parent / language
    return any((tree / f"{pagename}{suffix}").is_file() for suffix in (".md", ".ipynb", ".rst"))


def shared_anchors(env, pagename):
    """The ids of the page's explicit labels: the mirror check keeps them on the same page in both
    languages, unlike the ids made from a heading's words."""
    anchors = {labelid for docname, labelid in env.get_domain("std").anonlabels.values()
               if docname == pagename and labelid}
    return " ".join(sorted(anchors))


def add_switcher(app, pagename, templatename, context, doctree):
    config = app.config
    # from this page's folder up to the site root (which holds es/ and en/)
    up = "../" * (pagename.count("/") + 1)
    links = []
    for lang in other_languages(config):
        if not counterpart_exists(app, lang, pagename):
            logger.warning(f"page {pagename} has no {lang} counterpart", type="bilingual", subtype="mirror")
            continue
        links.append((lang, posixpath.join(up, lang, pagename + app.builder.out_suffix)))
    own = pagename + app.builder.out_suffix
    tags = [f'<link rel="alternate" hreflang="{config.book_language}" href="{posixpath.basename(own)}" />']
    tags += [f'<link rel="alternate" hreflang="{lang}" href="{url}" />' for lang, url in links]
    context["metatags"] = context.get("metatags", "") + "\n" + "\n".join(tags)
    if links:
        lang, url = links[0]
        name = config.book_languages[lang]
        context.update(book_other_url=url, book_other_language=lang, book_other_language_name=name,
                       book_switch_label=SWITCH_LABEL[config.book_language, lang],
                       book_shared_anchors=shared_anchors(app.env, pagename))


def check_stamp(app, doctree, docname):
    from myst_nb.sphinx_ import NbMetadataCollector

    if NbMetadataCollector.get_exec_data(app.env, docname) is None:
        return  # not an executed page
    stamped = any(STAMP_CLASS in node.astext() for node in doctree.findall(nodes.raw))
    if not stamped:
        logger.warning(f"{docname} executes code but shows no run stamp: its setup cell (added by "
                       "docs/_ext/casecells.py under the title) did not run book.kernel.stamp()",
                       location=docname, type="bilingual", subtype="stamp")


def setup(app):
    app.add_config_value("book_language", "en", "env")
    app.add_config_value("book_languages", {}, "env")
    app.add_config_value("book_execute_folder", "", "env")
    app.connect("builder-inited", relocate_execution_folder, priority=900)
    app.connect("env-check-consistency", check_mirror)
    app.connect("html-page-context", add_switcher)
    app.connect("doctree-resolved", check_stamp)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
