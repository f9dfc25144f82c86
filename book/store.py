"""Results kept on disk for one build, so that each experiment runs once per code fingerprint.

The book's build sets BOOK_STORE (docs/_build/store): the claim check, every page's kernel and
the compatibility page then share what any of them computed. Without it (tests, `python -m
drift`), results live in the process only. Every computation is logged to computed.jsonl, which
the build's execution report reads to count them (minigpt.train's run cache logs its training
runs to the same file, with the same functions).
"""

import json
import os
import pickle
import time
from pathlib import Path

from minigpt.experiment import COMPUTED_LOG, log_computation, write_atomically

ENV = "BOOK_STORE"
_memory = {}


def folder():
    return Path(os.environ[ENV]) if os.environ.get(ENV) else None


def _path(kind, key):
    return folder() / kind / f"{key}.pickle"


def load(kind, key):
    """The stored value, or KeyError."""
    if (kind, key) in _memory:
        return _memory[(kind, key)]
    if folder() is not None and _path(kind, key).is_file():
        _memory[(kind, key)] = pickle.loads(_path(kind, key).read_bytes())
        return _memory[(kind, key)]
    raise KeyError((kind, key))


def save(kind, key, value):
    _memory[(kind, key)] = value
    if folder() is not None:
        write_atomically(_path(kind, key), pickle.dumps(value))


def note_computed(kind, key, seconds):
    """Log one computation (the execution report counts them; none may repeat in a build)."""
    if folder() is not None:
        log_computation(folder(), kind, key, seconds)


def computed_since(started, store=None):
    """[{kind, key, seconds, at}] logged at or after `started` (a time.time() value)."""
    log = Path(store or folder() or "") / COMPUTED_LOG
    if not log.is_file():
        return []
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line]
    return [e for e in entries if e["at"] >= started]


def memoized(kind, key, compute):
    """compute() once per (kind, key): from memory, else from the store, else computed now."""
    try:
        return load(kind, key)
    except KeyError:
        start = time.perf_counter()
        value = compute()
        note_computed(kind, key, time.perf_counter() - start)
        save(kind, key, value)
        return value
