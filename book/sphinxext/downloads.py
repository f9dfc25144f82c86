"""Sphinx side of book.sphinxext.markdown: every executed page offers, from a menu in its header
(docs/_templates/download-menu.html), its executed notebook and its code as one .py script, in the
page's language. Pages that execute nothing get no menu.

The files go to <outdir>/_downloads/<page>.ipynb and .py (written with the page, so an incremental
build rewrites them exactly when it rewrites the page; editing markdown.py or this file re-reads
the executed pages, as Sphinx re-reads a page whose dependency changed, and executes nothing: it
is not code the pages run, so it is not part of their fingerprint, book.deps). The notebook is the one MyST-NB read for
the page (its execution folder, book/sphinxext/bilingual.py) with this build's outputs merged in from
the execution cache: MyST-NB 1.4 writes a page it took from the cache without outputs (it saves
the notebook it read, not the cache's merge), and its own copy has the glued values taken out.
Cross-references in the prose become links to the published book (the site URL, book/config.py).
"""

import posixpath
from pathlib import Path

import nbformat
from jupyter_cache import get_cache
from myst_nb.core.read import is_myst_markdown_notebook
from sphinx.errors import ExtensionError

from .. import config
from . import markdown as downloads

FOLDER = "_downloads"


def executed_notebook(app, pagename):
    """The page's notebook with this build's outputs, or None if the page executes nothing."""
    from myst_nb.sphinx_ import NbMetadataCollector

    if NbMetadataCollector.get_exec_data(app.env, pagename) is None:
        return None
    config = app.env.mystnb_config
    path = Path(app.outdir).parent.joinpath(config.output_folder, *f"{pagename}.ipynb".split("/"))
    notebook = nbformat.read(path, as_version=4)
    try:
        _, merged = get_cache(config.execution_cache_path).merge_match_into_notebook(notebook, cell_meta=())
    except KeyError:
        raise ExtensionError(f"downloads: {pagename} has no executed notebook in the execution cache "
                             f"({config.execution_cache_path}); rebuild from clean") from None
    return merged


def resolver(app, pagename):
    """resolve(role, target) -> (text, URL) of a cross-reference, in this page or on the site."""
    env, std = app.env, app.env.get_domain("std")
    base = config.SITE_URL + app.config.language + "/"

    def url(docname, anchor):
        where = "" if docname == pagename else base + docname + app.builder.out_suffix
        return f"{where}#{anchor}" if anchor else where

    def resolve(role, target):
        if role in ("ref", "numref", "any") and target in std.labels:
            docname, labelid, text = std.labels[target]
            return text, url(docname, labelid)
        if role in ("term", "any") and target.lower() in std._terms:
            docname, labelid = std._terms[target.lower()]
            return target, url(docname, labelid)
        if role in ("doc", "any"):
            docname = posixpath.normpath(posixpath.join(posixpath.dirname(pagename), target))
            if docname in env.titles:
                return env.titles[docname].astext(), url(docname, "")
        return None

    return resolve


def write_downloads(app, pagename, templatename, context, doctree):
    if app.builder.format != "html":
        return
    notebook = executed_notebook(app, pagename)
    if notebook is None:
        return
    language = app.config.language
    page_url = config.SITE_URL + f"{language}/{pagename}{app.builder.out_suffix}"
    source_dir = Path(app.env.doc2path(pagename)).parent
    folder = Path(app.outdir, FOLDER, *pagename.split("/")).parent
    folder.mkdir(parents=True, exist_ok=True)
    name = pagename.rsplit("/", 1)[-1]
    up = "../" * pagename.count("/")
    words = downloads.TEXT[language]
    links = []
    for suffix, make, label in ((".ipynb", downloads.notebook_download, words["notebook"]),
                                (".py", downloads.script_download, words["script"])):
        page = downloads.Page(language, resolve=resolver(app, pagename), extlinks=app.config.extlinks,
                              source_dir=source_dir)
        try:
            text = make(notebook, page, page_url)
        except downloads.DownloadError as exc:
            raise ExtensionError(f"downloads: {pagename}: {exc}") from None
        (folder / f"{name}{suffix}").write_text(text, encoding="utf-8", newline="\n")
        links.append({"text": label, "href": f"{up}{FOLDER}/{pagename}{suffix}", "filename": f"{name}{suffix}"})
    context["book_downloads"] = {"menu": words["menu"], "label": words["menu_label"], "links": links}


def depend_on_this_code(app, docname, source):
    """An executed page's downloads are made by this code: a change to it re-reads the page."""
    if is_myst_markdown_notebook(source[0]):
        for path in (__file__, downloads.__file__):
            app.env.note_dependency(str(Path(path).resolve()))


def setup(app):
    app.connect("source-read", depend_on_this_code)
    app.connect("html-page-context", write_downloads)
