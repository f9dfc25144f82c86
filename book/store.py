"""Results kept on disk for one build, so that each experiment runs once per code fingerprint.

The book's build sets BOOK_STORE (docs/_build/store): the claim check, every page's kernel and
the compatibility page then share what any of them computed. Without it (tests, `python -m
drift`), results live in the process only.

A first build reads pages in two processes (docs/build.py), and still computes nothing twice:
- an experiment is computed under a lock (`memoized`): a process that needs it meanwhile waits,
  then reads it;
- a page's kernel promises the case outcomes its cells will save (`promise`): a kernel of the
  other process that needs one before it is saved waits for it (`load`) instead of running the
  example again, for as long as the promising kernel lives.

Every computation is logged to computed.jsonl, which
the build's execution report reads to count them (minigpt.train's run cache logs its training
runs to the same file, with the same functions).
"""

import contextlib
import fcntl
import json
import os
import pickle
import time
from pathlib import Path

from minigpt.experiment import COMPUTED_LOG, log_computation, write_atomically

ENV = "BOOK_STORE"
WAIT_S = 1800  # the longest a kernel waits for a result that a live kernel promised
_memory = {}


def folder():
    return Path(os.environ[ENV]) if os.environ.get(ENV) else None


def _path(kind, key):
    return folder() / kind / f"{key}.pickle"


def _promise_path(kind, key):
    return folder() / kind / f"{key}.promised"


def promise(kind, keys):
    """This process will save (kind, key) for each key: until it does, or ends, another process
    that needs one waits for it (load)."""
    if folder() is None:
        return
    for key in keys:
        if not _path(kind, key).is_file():
            write_atomically(_promise_path(kind, key), str(os.getpid()).encode())


def release(kind, keys):
    """Withdraw this process's promise of (kind, key) for each key it did not save."""
    if folder() is None:
        return
    for key in keys:
        try:
            if int(_promise_path(kind, key).read_text()) == os.getpid():
                _promise_path(kind, key).unlink()
        except (OSError, ValueError):
            pass


def _promised_elsewhere(kind, key):
    """Whether another process that is still running promised (kind, key)."""
    try:
        pid = int(_promise_path(kind, key).read_text())
    except (OSError, ValueError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # running, as another user
        pass
    return True


def load(kind, key, wait_s=WAIT_S):
    """The stored value, or KeyError. A value that another running process promised is waited
    for (up to wait_s)."""
    if (kind, key) in _memory:
        return _memory[(kind, key)]
    if folder() is None:
        raise KeyError((kind, key))
    deadline = time.monotonic() + wait_s
    while not _path(kind, key).is_file() and _promised_elsewhere(kind, key) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _path(kind, key).is_file():
        _memory[(kind, key)] = pickle.loads(_path(kind, key).read_bytes())
        return _memory[(kind, key)]
    raise KeyError((kind, key))


def save(kind, key, value):
    _memory[(kind, key)] = value
    if folder() is not None:
        write_atomically(_path(kind, key), pickle.dumps(value))
        _promise_path(kind, key).unlink(missing_ok=True)


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


@contextlib.contextmanager
def _computing(kind, key):
    """Hold (kind, key)'s lock while computing it: another process that needs it meanwhile waits,
    then reads what this one saved."""
    if folder() is None:
        yield
        return
    lock = folder() / kind / f"{key}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield


def memoized(kind, key, compute):
    """compute() once per (kind, key): from memory, else from the store, else computed now (by
    one process only: the others wait for it)."""
    try:
        return load(kind, key)
    except KeyError:
        pass
    with _computing(kind, key):
        try:
            return load(kind, key, wait_s=0)  # computed while this process waited for the lock
        except KeyError:
            start = time.perf_counter()
            value = compute()
            note_computed(kind, key, time.perf_counter() - start)
            save(kind, key, value)
            return value
