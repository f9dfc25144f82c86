"""The status page's execution table (MyST-NB's ``{nb-exec-table}``, in the page's language, without
run times: two builds of one commit publish the same site but for its dates), each executed page's
run stamp, and the pages read on every build (ALWAYS_READ: the status page shows the build date;
Sphinx keeps the glossary's index entries only for the pages it read)."""

import datetime
import html
import posixpath
import sys
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.transforms.post_transforms import SphinxPostTransform

from .words import words as ui

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

ALWAYS_READ = ("status", "glossary")


def always_read(app: "Sphinx", env: "BuildEnvironment", *changes: set[str]) -> list[str]:  # added, changed, removed
    return [doc for doc in ALWAYS_READ if doc in env.found_docs]


def _row(*cells: str | nodes.paragraph) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        row += nodes.entry("", cell if isinstance(cell, nodes.paragraph) else nodes.paragraph(text=cell))
    return row


def ran_at(ran: dict[str, Any]) -> str:
    """When MyST-NB's record of a page's execution (its execution cache's) says it ran, UTC."""
    return datetime.datetime.fromtimestamp(ran["mtime"], datetime.UTC).strftime("%Y-%m-%d %H:%M")


def add_stamp(app: "Sphinx", doctree: nodes.document, docname: str) -> None:
    """Under an executed page's title, the run stamp: when its outputs were computed, with the releases
    its fingerprint holds and the kernel's Python; left out of the search index."""
    from myst_nb.sphinx_ import NbMetadataCollector

    ran, title = NbMetadataCollector.get_exec_data(app.env, docname), doctree.next_node(nodes.title)
    if not ran or title is None:
        return
    python = app.env.metadata[docname]["language_info"]["version"]
    shown = " · ".join([*app.config.book_fingerprinted, f"Python {python}", sys.platform, f"{ran_at(ran)} UTC"])
    stamp = nodes.raw("", f'<div class="book-stamp">⚙ {html.escape(shown)}</div>', format="html")
    title.parent.insert(title.parent.index(title) + 1, nodes.container("", stamp, classes=["no-search"]))


def execution_table(env: "BuildEnvironment", here: str, language: str) -> nodes.table:
    from myst_nb.sphinx_ import NbMetadataCollector

    words = ui(language)
    table = nodes.table(classes=["colwidths-auto", "no-search"])  # times: not search terms
    group = nodes.tgroup(cols=3)
    table += group
    group.extend(nodes.colspec(colwidth=1) for _ in range(3))
    group += nodes.thead("", _row(words["status_page"], words["status_ran"], words["status_result"]))
    body = nodes.tbody()
    group += body
    for docname, data in sorted(NbMetadataCollector.get_doc_data(env).items()):
        if not (ran := data.get("exec_data")):
            continue
        target = posixpath.relpath(docname, posixpath.dirname(here))
        link = pending_xref(
            refdoc=here, reftarget=target, reftype="doc", refdomain="std", refexplicit=True, refwarn=True
        )
        link += nodes.inline(text=env.titles[docname].astext())
        result = words["status_succeeded" if ran["succeeded"] is True else "status_failed"]
        body += _row(nodes.paragraph("", "", link), ran_at(ran), result)
    return table


class FillExecutionTable(SphinxPostTransform):
    default_priority = 7  # before MyST-NB's own table (8) and the references (10)

    def run(self, **kwargs: Any) -> None:
        from myst_nb.ext.execution_tables import ExecutionStatsNode

        for node in list(self.document.findall(ExecutionStatsNode)):
            node.replace_self(execution_table(self.env, self.env.docname, self.config.language))


def setup(app: "Sphinx") -> None:
    app.connect("env-get-outdated", always_read)
    app.add_post_transform(FillExecutionTable)
    app.connect("doctree-resolved", add_stamp)
