"""An executable two-language book engine (`python -m execbook`, AUTHORING.md): the facts shared
with nox and CI (config, from pyproject.toml's [tool.book]), the case manifest and its judge
(cases), what pages depend on (deps), the results a build keeps (store), the pages as they run
(pages, kernel, checks, tracebacks), the build, which runs them in Jupyter kernels, and its
failure reports (build), the author's
commands (author, scaffold, sizes) and the Sphinx extension (sphinxext). It imports nothing of
the book it builds: a book's own code comes in by name, through [tool.book.hooks].

What runs again is decided by one fingerprint (store.fingerprint: the paths and contents of the
files, the manifest entries and the installed releases of [tool.book] `fingerprinted`) and kept
in two caches. MyST-NB's execution cache holds each page's executed notebook under its cells,
whose hidden setup cell names the fingerprint of everything the page depends on (deps), so a
page runs again exactly when one of those changes. The store (docs/_build/store) holds the
results pages and claims share, each under a key ending in the fingerprint of the code that
computes it, and logs every computation to computed.jsonl, so that a build that computes one
twice fails; a book's own code keeps its results there too, through the store (phase 25:
minigpt's experiments go through the cache [tool.book.environment] names, the lesson's
phase25.experiments.stored). A failure is an exception with fields (cases.Failure: file, line,
kind, reason, what to do), kept by the page's guard in the store and rendered by the build in
one place (cases.Failure.render)."""
