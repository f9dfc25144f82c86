"""Sphinx side of execbook.pages: an executed page only says which examples it loads; before MyST-NB
reads it, its text gets the setup cell, the raises-exception tags and the hidden guards that the
case manifest (examples/cases.toml) implies, and Sphinx learns which files the page depends on
(execbook.deps), so that editing one re-reads the pages that use it and no other. (Re-reading takes
the outputs from the execution cache: only the build's first step executes.)
"""

from typing import TYPE_CHECKING

from sphinx.errors import ExtensionError

from .. import build, config, deps, pages

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def add_cases(app: "Sphinx", docname: str, source: list[str]) -> None:
    if not pages.is_executed(source[0]):
        return
    build.wait_for_execution(docname)  # a page the build still executes: read once it is cached
    try:
        source[0], names = pages.with_cases(source[0], app.env.doc2path(docname))
    except pages.PageError as exc:
        raise ExtensionError(f"{docname}: {exc}") from None
    for dependency in sorted(deps.page_dependencies(names) | {config.MANIFEST}):
        app.env.note_dependency(str(dependency))


def setup(app: "Sphinx") -> None:
    app.add_config_value("book_fingerprinted", "", "env")  # sphinxext.config: the installed releases
    app.connect("source-read", add_cases)
    # the pages the build still executes, last (sorted() is stable: Sphinx's order otherwise)
    app.connect("env-before-read-docs", lambda app, env, docnames: docnames.sort(key=build.pending))
