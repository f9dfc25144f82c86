"""Behaviour drift across PyTorch releases: the claims the book's prose relies on, checked.

- ``drift.message``: the version-counter error taken apart into its stable core and its
  variable parts (tensor, "output 0 of ...", versions, Hint).
- ``drift.claims``: every behaviour the prose relies on, as a named check.
- ``drift.record``: one JSON record per torch release (variable parts + claim outcomes), and
  the differences between records.
- ``python -m drift``: record, check and report from the command line.
"""
