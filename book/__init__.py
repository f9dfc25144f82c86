"""The book's helpers: the case manifest (cases), what pages depend on (deps), the experiments
shared by claims and pages (experiments, store) and the notebook kernel's side (kernel)."""

import os
from pathlib import Path


def repo_root():
    """The repository holding the justfile, examples/ and minigpt/."""
    if os.environ.get("BOOK_REPO_ROOT"):
        return Path(os.environ["BOOK_REPO_ROOT"])
    here = Path(__file__).resolve().parents[1]
    if (here / "justfile").is_file():
        return here
    raise RuntimeError("cannot find the repository root (set BOOK_REPO_ROOT)")
