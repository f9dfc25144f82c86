"""What this build executed, and pages that must be read on every build.

- Writes ``<build>/execution/<lang>.json`` after each build: the pages Sphinx read, which of them
  MyST-NB executed now (not served from its cache), how many code cells those ran, and every
  experiment computed meanwhile (book.store's log; none may appear twice). The benchmark and
  the staleness tests read it.
- Re-reads the pages named in ``book_always_read`` on every build (neither executes code, so
  re-reading them is cheap): the status page shows the build date with ``{sub-ref}`today```; the
  glossary's terms are index entries, and Sphinx's search index keeps those only of the pages
  read in that build (an incremental build would publish a search index without them).
- ``{book-execution-table}``: when each executed page ran and whether it succeeded, with headers in
  the page's language. Unlike MyST-NB's ``{nb-exec-table}`` it shows no run times: the published
  site must be the same for two builds of one commit but for its dates (tests/test_reproducible.py);
  the seconds are printed by the build (docs/_ext/progress.py).

Safe for parallel reading: everything is computed in the main process, from the list of pages to
read and, after the build, from MyST-NB's execution data and the stored doctrees.
"""

import datetime
import json
import posixpath
import time
from pathlib import Path

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from book import pages

REPORT = {}


def start(app):
    REPORT.clear()
    REPORT.update(started=time.time(), read=[])


def always_read(app, env, added, changed, removed):
    return [doc for doc in app.config.book_always_read if doc in env.found_docs]


def note_read(app, env, docnames):
    REPORT["read"] = sorted(docnames)


def executed_now(env, docname):
    from myst_nb.sphinx_ import NbMetadataCollector

    data = NbMetadataCollector.get_exec_data(env, docname)
    return bool(data) and data.get("mtime", 0) >= REPORT["started"]


def write_report(app, exception):
    if exception is not None:
        return
    executed = [doc for doc in REPORT["read"] if executed_now(app.env, doc)]
    cells = sum(sum(c.cell_type == "code" for c in pages.notebook(app.env.doc2path(doc)).cells)
                for doc in executed)  # as the kernel ran them: the setup cell and guards included
    folder = Path(app.config.book_execution_report_dir)
    folder.mkdir(parents=True, exist_ok=True)
    from book import store

    experiments = [f"{e['kind']}:{e['key']}" for e in store.computed_since(REPORT["started"])]
    report = dict(REPORT, executed=executed, cells_executed=cells, language=app.config.language,
                  experiments=experiments,
                  seconds=round(time.time() - REPORT["started"], 2))
    (folder / f"{app.config.language}.json").write_text(json.dumps(report, indent=1) + "\n")


# MyST-NB re-writes the pages marked with its own key when a page executes (its env-updated hook)
HAS_EXECUTION_TABLE = "has_exec_table"
TABLE_WORDS = {
    "es": {"page": "Página", "ran": "Ejecutada (UTC)", "result": "Resultado", True: "correcta", False: "falló"},
    "en": {"page": "Page", "ran": "Executed (UTC)", "result": "Result", True: "succeeded", False: "failed"},
}


class ExecutionTableNode(nodes.General, nodes.Element):
    """Where the table goes; filled in once every page has been read (and executed)."""


class ExecutionTable(SphinxDirective):
    def run(self):
        from myst_nb.sphinx_ import NbMetadataCollector

        NbMetadataCollector.set_doc_data(self.env, self.env.docname, HAS_EXECUTION_TABLE, True)
        return [ExecutionTableNode()]


def _row(*cells):
    row = nodes.row()
    for cell in cells:
        row += nodes.entry("", cell if isinstance(cell, nodes.paragraph) else nodes.paragraph(text=cell))
    return row


def execution_table(env, here, language):
    from myst_nb.sphinx_ import NbMetadataCollector

    words = TABLE_WORDS[language]
    table = nodes.table(classes=["colwidths-auto", "no-search"])  # times: not search terms
    group = nodes.tgroup(cols=3)
    table += group
    group.extend(nodes.colspec(colwidth=1) for _ in range(3))
    group += nodes.thead("", _row(words["page"], words["ran"], words["result"]))
    body = nodes.tbody()
    group += body
    for docname, data in sorted(NbMetadataCollector.get_doc_data(env).items()):
        ran = data.get("exec_data")
        if not ran:
            continue
        link = pending_xref(refdoc=here, reftarget=posixpath.relpath(docname, posixpath.dirname(here)),
                            reftype="doc", refdomain="std", refexplicit=True, refwarn=True)
        link += nodes.inline(text=env.titles[docname].astext())
        when = datetime.datetime.fromtimestamp(ran["mtime"], datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
        body += _row(nodes.paragraph("", "", link), when, words[ran["succeeded"] is True])
    return table


class FillExecutionTable(SphinxPostTransform):
    default_priority = 8  # before the references are resolved (10)

    def run(self, **kwargs):
        for node in list(self.document.findall(ExecutionTableNode)):
            node.replace_self(execution_table(self.env, self.env.docname, self.config.language))


def setup(app):
    app.add_config_value("book_always_read", [], "env")
    app.add_config_value("book_execution_report_dir", "", "env")
    app.connect("builder-inited", start)
    app.connect("env-get-outdated", always_read)
    app.connect("env-before-read-docs", note_read)
    app.connect("build-finished", write_report)
    app.add_node(ExecutionTableNode)
    app.add_directive("book-execution-table", ExecutionTable)
    app.add_post_transform(FillExecutionTable)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
