"""Behaviour drift across PyTorch releases: the claims the book's prose relies on, checked.

- ``drift.claims``: every behaviour the prose relies on, as a named check. Checks read results
  (book.experiments, book.cases: computed once per code fingerprint); drift runs no page's file.
- ``drift.record``: one JSON record per torch release (the message's variable parts, taken
  apart by book.message, and the claim outcomes), and the differences between records.
- ``python -m drift``: record, check and report from the command line.
"""
