"""Publishers of the safe examples (book.publish)."""

from . import publisher  # noqa: F401
