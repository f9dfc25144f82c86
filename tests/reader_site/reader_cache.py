"""A MINIGPT_CACHE function for the downloads' runs (tests/test_downloads.py): a reader's Python has
the project installed, not the lesson nor the engine, so the book's cache (phase25.experiments.stored)
is not there. The runs of one test share this folder instead, READER_CACHE: each experiment is
computed once, by the first run that needs it, in a reader's environment."""

import os
import pickle
from pathlib import Path


def keep(key, compute):
    path = Path(os.environ["READER_CACHE"]) / f"{key}.pickle"
    if path.is_file():
        return pickle.loads(path.read_bytes())
    value = compute()
    scratch = path.with_suffix(f".{os.getpid()}.tmp")  # another run never reads half of it
    scratch.write_bytes(pickle.dumps(value))
    scratch.replace(path)
    return value
