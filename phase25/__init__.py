"""Behaviour drift across PyTorch releases: the claims the book's prose relies on, checked.

- ``phase25.claims``: every behaviour the prose relies on, as a named check. Checks read results
  (phase25.experiments, execbook.cases: computed once per code fingerprint); drift runs no page's file.
- ``phase25.record``: one JSON record per torch release (the message's variable parts, taken
  apart by minigpt.message, and the claim outcomes), and the differences between records.
- ``python -m phase25``: record, check and report from the command line.
"""
