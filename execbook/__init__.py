"""What the book's pages run on, and how it is built (`python -m execbook`, AUTHORING.md): the facts
shared with nox and CI (config), the case manifest (cases), what pages depend on (deps), the
experiments shared by claims and pages (experiments, store), the pages as they run (pages,
kernel, checks), the build (build) and its Sphinx extension (sphinxext)."""
