"""One build per checkout (docs/_build/build.lock names its pid: a second one waits), and nothing left
when it ends, however it ends: a watcher process, told of every process group the build starts, kills
those left when its pipe ends (SIGKILL of the build included) and holds the lock until then. SIGTERM
raises Interrupted, as Ctrl-C raises KeyboardInterrupt."""

import contextlib
import fcntl
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

# The watcher: "+GROUP" and "-GROUP" lines from the build, then the end of its pipe.
WATCHER = """
import os, signal, sys
groups = set()
for line in sys.stdin:
    (groups.add if line[0] == "+" else groups.discard)(int(line[1:]))
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
"""
_watcher: list[subprocess.Popen[str]] = []


class Interrupted(BaseException):
    """A build, or `run`, received SIGTERM (as KeyboardInterrupt is SIGINT): status is its exit status."""

    def __init__(self, signum: int) -> None:
        self.status = 128 + signum
        super().__init__(signal.Signals(signum).name)


def stopped(signum: int, frame: object) -> None:
    raise Interrupted(signum)


@contextlib.contextmanager
def held(folder: Path, say: Callable[[str], None]) -> Iterator[None]:
    """The checkout's build lock and a watcher of the processes started meanwhile (own)."""
    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as ending:  # undone in reverse order, however the build ends
        # SIGTERM raises Interrupted while the build waits for the lock too
        ending.callback(signal.signal, signal.SIGTERM, signal.signal(signal.SIGTERM, stopped))
        lock = ending.enter_context(open(folder / "build.lock", "a+", encoding="utf-8"))
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            say(f"waiting for the build that runs in this checkout (pid {lock.read().strip() or '?'}) to end ...")
            fcntl.flock(lock, fcntl.LOCK_EX)
        lock.seek(0)
        lock.truncate()
        lock.write(f"{os.getpid()}\n")
        lock.flush()
        watcher = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", WATCHER],
            stdin=subprocess.PIPE,
            text=True,
            pass_fds=(lock.fileno(),),
            start_new_session=True,  # Ctrl-C in the terminal does not stop it
        )
        assert watcher.stdin is not None
        ending.callback(watcher.wait)
        ending.callback(watcher.stdin.close)  # the end of its pipe: it kills the groups left
        _watcher.append(watcher)
        ending.callback(_watcher.remove, watcher)
        yield


def _tell(line: str) -> None:
    for watcher in _watcher:
        assert watcher.stdin is not None
        watcher.stdin.write(f"{line}\n")
        watcher.stdin.flush()


def own(group: int) -> None:
    """A process group the build started: the watcher kills it if the build ends first."""
    _tell(f"+{group}")


def end(group: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
    with contextlib.suppress(BrokenPipeError):
        _tell(f"-{group}")
