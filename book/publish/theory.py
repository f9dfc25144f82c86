"""Publishers of the theory examples (book.publish)."""

from . import publisher  # noqa: F401
