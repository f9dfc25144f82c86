"""Results kept for a build (BOOK_STORE, docs/_build/store) under keys that change with everything they
depend on, so that each experiment runs once per fingerprint; without BOOK_STORE, in the process only.
Each computation is logged to computed.jsonl: a build that computed anything twice fails."""

import hashlib
import json
import os
import pickle
import subprocess
import time
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from .config import STORE_ENV

COMPUTED_LOG = "computed.jsonl"  # in the store: one line per result computed there

_memory: dict[tuple[str, str], Any] = {}


def fingerprint(
    files: Iterable[str | Path], root: Path, *extra: str | bytes, read: Callable[[Path], bytes] = Path.read_bytes
) -> str:
    """The engine's one fingerprint: a short hash of files (paths from root, contents as `read` reads) and extra."""
    digest = hashlib.sha256()
    for item in extra:
        digest.update((item if isinstance(item, bytes) else str(item).encode()) + b"\0")
    for path in sorted(Path(f) for f in files):
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        digest.update(name.encode() + b"\0" + read(path) + b"\0")
    return digest.hexdigest()[:16]


@cache
def project_files(root: Path) -> frozenset[Path]:
    """The book's own files: what git tracks in root or would (never build/, *.egg-info/); outside a
    checkout, what root's .gitignore files leave."""
    listed = ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    with TemporaryDirectory() as empty:
        done = subprocess.run(["git", *listed], cwd=root, capture_output=True)
        if done.returncode:  # not a checkout: git reads root's .gitignore files beside an empty repository
            subprocess.run(["git", "init", "-q", "--bare", empty], check=True, capture_output=True)
            done = subprocess.run(  # a failure here raises: an empty list would fingerprint nothing
                ["git", f"--git-dir={empty}", f"--work-tree={root}", *listed], cwd=root, capture_output=True, check=True
            )
    return frozenset(p for name in done.stdout.decode().split("\0") if name and (p := root / name).is_file())


def write_atomically(path: str | Path, data: bytes) -> None:
    """Write bytes to path so that another process never reads half of them."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(f".{os.getpid()}.tmp")
    scratch.write_bytes(data)
    scratch.replace(path)


def folder() -> Path | None:
    """The build's result store (BOOK_STORE), None outside a build."""
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


def save(kind: str, key: str, value: Any, seconds: float | None = 0.0) -> None:
    """Keep value under (kind, key), and log its computation (seconds None: a record, such as a failure)."""
    _memory[(kind, key)] = value
    if (store := folder()) is not None:
        write_atomically(_path(store, kind, key), pickle.dumps(value))
        if seconds is not None:  # the build counts them
            entry = {"kind": kind, "key": key, "seconds": round(seconds, 3), "at": time.time()}
            with open(store / COMPUTED_LOG, "a", encoding="utf-8") as log:
                log.write(json.dumps(entry) + "\n")


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
    """[{kind, key, seconds, at}] logged since `started` (time.time()) in the store, its folders' logs too."""
    root = store or folder()
    logs = sorted(root.rglob(COMPUTED_LOG)) if root is not None and root.is_dir() else []
    entries = [json.loads(line) for log in logs for line in log.read_text(encoding="utf-8").splitlines() if line]
    return [e for e in entries if e["at"] >= started]
