"""Sphinx side of book.pages: an executed page only says which examples it loads; before MyST-NB
reads it, its text gets the setup cell, the raises-exception tags and the hidden guards that the
case manifest (examples/cases.toml) implies, and Sphinx learns which files the page depends on
(book.deps), so that editing one re-reads the pages that use it and no other.
"""

from myst_nb.core.read import is_myst_markdown_notebook
from sphinx.errors import ExtensionError

from book import deps, pages


def add_cases(app, docname, source):
    if not is_myst_markdown_notebook(source[0]):
        return
    try:
        source[0], names = pages.with_cases(source[0], app.env.doc2path(docname), app.config.myst_enable_extensions)
    except pages.PageError as exc:
        raise ExtensionError(f"{docname}: {exc}") from None
    for dependency in sorted(deps.page_dependencies(names)):
        app.env.note_dependency(str(dependency))


def read_together_first(app, env, docnames):
    """Read the pages that share experiments first, in their order (docs/build.py says why)."""
    together = [doc for doc in app.config.book_read_together if doc in docnames]
    docnames[:] = together + [doc for doc in docnames if doc not in together]


def setup(app):
    app.add_config_value("book_torch", "", "env")  # conf_shared sets the installed release
    app.add_config_value("book_read_together", [], "env")
    app.connect("source-read", add_cases)
    app.connect("env-before-read-docs", read_together_first)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
