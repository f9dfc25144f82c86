"""Sphinx side of book.pages: an executed page only says which examples it loads; before MyST-NB
reads it, its text gets the setup cell, the raises-exception tags and the hidden guards that the
case manifest (examples/cases.toml) implies, and Sphinx learns which files the page depends on
(book.deps), so that editing one re-reads the pages that use it and no other.
"""

from pathlib import Path

from jupyter_cache import get_cache
from myst_nb.core.read import is_myst_markdown_notebook
from sphinx.errors import ExtensionError
from sphinx.util.parallel import make_chunks

from book import cases, deps, pages, store

# The case outcomes a page will save are promised (book.store) from before the reading processes
# start until its kernel saves them: by Sphinx's main process for every page it is about to read
# (read_in_order), then by the process that reads the page (add_cases), then by the page's kernel
# (book.kernel.will_check). A page read at the same time in the other process that needs one waits
# for it instead of running the case again. A page served from MyST-NB's cache runs no kernel: its
# reader withdraws what it promised once the page is read (release_cases).
_promised = {}  # docname -> the case outcome keys this process promised


def promise_cases(docname, names):
    keys = [cases.outcome_key(name) for name in names]
    store.promise("case", keys)
    _promised[docname] = keys


def release_cases(app, doctree):
    store.release("case", _promised.pop(app.env.docname, []))


def add_cases(app, docname, source):
    if not is_myst_markdown_notebook(source[0]):
        return
    try:
        source[0], names = pages.with_cases(source[0], app.env.doc2path(docname), app.config.myst_enable_extensions)
    except pages.PageError as exc:
        raise ExtensionError(f"{docname}: {exc}") from None
    promise_cases(docname, names)
    for dependency in sorted(deps.page_dependencies(names)):
        app.env.note_dependency(str(dependency))


def reading_order(docnames, alone, last, executed, processes):
    """The order in which Sphinx should read docnames (docs/build.py says why).

    The executed pages come first: `alone` (the longest; when a later build does not read it, the
    first of the others), the others, then `last` (the pages that read what the others computed);
    the pages that execute nothing after them. With two processes
    or more, Sphinx gives each a run of consecutive pages (sphinx.util.parallel.make_chunks): the
    first run is then `alone` filled up with pages that execute nothing, and the second starts
    with the other executed pages. book.store keeps any experiment from being computed twice,
    whatever runs where: this order only balances the work."""
    alone = [doc for doc in alone if doc in docnames]
    last = [doc for doc in last if doc in docnames]
    others = [doc for doc in docnames if doc in executed and doc not in alone + last]
    if not alone:  # a later build, without the longest page: the first other one goes first
        alone, others = others[:1], others[1:]
    cheap = [doc for doc in docnames if doc not in executed and doc not in alone + last]
    fill = len(make_chunks(docnames, processes)[0]) - len(alone) if processes > 1 else 0
    fill = max(0, min(fill, len(cheap)))
    return alone + cheap[:fill] + others + last + cheap[fill:]


def read_in_order(app, env, docnames):
    # Two processes that execute pages at once would each create MyST-NB's execution cache (a
    # SQLite file) on a first build, and one of them fail: create it here, before they start.
    get_cache(app.config.nb_execution_cache_path).list_cache_records()
    sources = {doc: Path(env.doc2path(doc)).read_text(encoding="utf-8") for doc in docnames}
    executed = {doc for doc in docnames if is_myst_markdown_notebook(sources[doc])}
    for doc in executed:
        names = [name for _, name in pages.loaded_examples(sources[doc], env.doc2path(doc),
                                                            app.config.myst_enable_extensions)]
        promise_cases(doc, names)
    docnames[:] = reading_order(docnames, app.config.book_read_alone, app.config.book_read_last,
                                executed, app.parallel)


def setup(app):
    app.add_config_value("book_torch", "", "env")  # conf_shared sets the installed release
    app.add_config_value("book_read_alone", [], "env")
    app.add_config_value("book_read_last", [], "env")
    app.connect("source-read", add_cases)
    app.connect("env-before-read-docs", read_in_order)
    app.connect("doctree-read", release_cases)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
