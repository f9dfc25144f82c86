"""What this build executed, and pages that must be read on every build.

- Writes ``<build>/execution/<lang>.json`` after each build: the pages Sphinx read, which of them
  MyST-NB executed now (not served from its cache), how many code cells those ran, and every
  experiment computed meanwhile (book.store's log; none may appear twice). The benchmark and
  the staleness tests read it.
- Re-reads the pages named in ``book_always_read`` on every build (the status page shows the
  build date with ``{sub-ref}`today```; it executes no code, so re-reading it is cheap).

Safe for parallel reading: everything is computed in the main process, from the list of pages to
read and, after the build, from MyST-NB's execution data and the stored doctrees.
"""

import json
import time
from pathlib import Path

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


def setup(app):
    app.add_config_value("book_always_read", [], "env")
    app.add_config_value("book_execution_report_dir", "", "env")
    app.connect("builder-inited", start)
    app.connect("env-get-outdated", always_read)
    app.connect("env-before-read-docs", note_read)
    app.connect("build-finished", write_report)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
