"""Results kept on disk for a build, so that each experiment runs once per fingerprint.

The build sets BOOK_STORE (docs/_build/store) for every page's kernel and for its first step,
which computes the shared experiments (book.experiments.SHARED) before any page runs. A result is
written once, under a key that changes with everything it depends on, and read back by whoever
needs it later: a page, a claim, the next build. Without BOOK_STORE (the tests, `python -m
drift`) results live in the process only.

Every computation is logged to computed.jsonl (minigpt.train's run cache logs its training runs
there too): the build fails if one build computed anything twice.
"""

import json
import os
import pickle
import time
from pathlib import Path
from typing import Any, Callable

from minigpt.experiment import COMPUTED_LOG, log_computation, write_atomically

from .config import STORE_ENV

_memory: dict[tuple[str, str], Any] = {}


def folder() -> Path | None:
    return Path(os.environ[STORE_ENV]) if os.environ.get(STORE_ENV) else None


def _path(store: Path, kind: str, key: str) -> Path:
    return store / kind / f"{key}.pickle"


def load(kind: str, key: str) -> Any:
    """The stored value, or KeyError."""
    if (kind, key) not in _memory:
        store = folder()
        if store is None or not _path(store, kind, key).is_file():
            raise KeyError((kind, key))
        _memory[(kind, key)] = pickle.loads(_path(store, kind, key).read_bytes())
    return _memory[(kind, key)]


def save(kind: str, key: str, value: Any, seconds: float = 0.0) -> None:
    """Keep value under (kind, key), and log its computation."""
    _memory[(kind, key)] = value
    store = folder()
    if store is not None:
        write_atomically(_path(store, kind, key), pickle.dumps(value))
        log_computation(store, kind, key, seconds)


def memoized(kind: str, key: str, compute: Callable[[], Any]) -> Any:
    """compute() once per (kind, key): from memory, else from the store, else computed now."""
    try:
        return load(kind, key)
    except KeyError:
        start = time.perf_counter()
        value = compute()
        save(kind, key, value, time.perf_counter() - start)
        return value


def computed_since(started: float, store: Path | None = None) -> list[dict[str, Any]]:
    """[{kind, key, seconds, at}] logged at or after `started` (a time.time() value)."""
    log = Path(store or folder() or "") / COMPUTED_LOG
    if not log.is_file():
        return []
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line]
    return [e for e in entries if e["at"] >= started]
