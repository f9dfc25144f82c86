from execbook.sphinxext.config import configure

globals().update(configure("en"))
# reference/api reads the public API with autodoc; the standard library's and Matplotlib's types in
# its signatures link nowhere (no inventory of theirs is read: nothing downloads while a book builds)
extensions.append("sphinx.ext.autodoc")  # noqa: F821 (configure's)
nitpick_ignore_regex = [("py:class", r"(collections\.abc|pathlib)\.\w+|Figure|(tuple|dict)\[str")]
