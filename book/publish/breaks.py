"""Publishers of the breaks examples (book.publish)."""

from . import publisher  # noqa: F401
