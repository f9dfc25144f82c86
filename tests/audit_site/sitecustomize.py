"""Loaded by every Python process that tests/run_examples.py starts (through PYTHONPATH): it logs
the repository files the process opens or runs, so a subprocess's reads count for its example."""

import os
import sys

if os.environ.get("BOOK_AUDIT_LOG"):
    _log, _repo = os.environ["BOOK_AUDIT_LOG"], os.environ["BOOK_AUDIT_REPO"]

    def _audit(event, args):
        if event == "open" and isinstance(args[0], str) and args[0].startswith(_repo):
            with open(_log, "a", encoding="utf-8") as log:  # this open is not under the repository
                log.write(args[0] + "\n")

    sys.addaudithook(_audit)
