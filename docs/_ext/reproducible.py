"""What keeps two builds of one commit publishing the same site (tests/test_reproducible.py).

Sphinx links a stylesheet with a checksum (`mystnb.<hash>.css?v=<checksum>`) when the file is
already in the output folder as it writes a page. MyST-NB copies its stylesheet there only when
the build finishes, so a first build linked it without the checksum and a later one with it.
Copying it before any page is written makes every build link it the same way.

Dates would reach the search index as words ("2026", "12", "03"): the stamp of each executed
page (book.pages), the status page's execution table (docs/_ext/freshness.py) and its build date
carry the class `no-search`, which Sphinx's indexer skips.
"""

from pathlib import Path


def copy_mystnb_stylesheet(app):
    if app.builder.format != "html":
        return
    from myst_nb.sphinx_ext import add_global_html_resources

    (Path(app.builder.outdir) / "_static").mkdir(parents=True, exist_ok=True)
    add_global_html_resources(app, None)


def setup(app):
    app.connect("builder-inited", copy_mystnb_stylesheet)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
