"""Publishers of the compat examples (book.publish)."""

from . import publisher  # noqa: F401
