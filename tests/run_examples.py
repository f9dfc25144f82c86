"""Run every example of examples/cases.toml in this one process, one after the other, and write
what each did (judged by execbook.cases.judge, as the book's guards judge a cell) and every file of
the repository it opened or ran, to the JSON file named on the command line.

    python tests/run_examples.py OUT.json [NAME ...]

(only the examples named, if any are)

The repository's packages are imported afresh for each example, so each one's imports count for
it; child processes (the reproducer runs `just`, which runs python -m minigpt) log their own
reads through tests/audit_site/sitecustomize.py. tests/conftest.py starts this in the background
at the beginning of the session; test_examples.py and test_deps.py read the result.
"""

import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's packages, wherever the installed ones point
SPAWN_EVENTS = ("subprocess.Popen", "os.posix_spawn", "os.exec")
current = {"opened": None}


def source(path):
    """A module's source for its compiled file (__pycache__/x.cpython-311.pyc -> x.py)."""
    path = Path(path)
    if path.parent.name == "__pycache__":
        return path.parent.parent / f"{path.name.split('.')[0]}.py"
    return path


NOT_SOURCES = (".nox", ".git")  # the virtual environments nox keeps inside the repository
RUNNER = {
    Path(__file__),
    REPO / "execbook" / "src" / "execbook" / "cases.py",
}  # this runner's own code (linecache reads it)


def note(path):
    if isinstance(path, (str, os.PathLike)) and str(path).startswith(str(REPO)):
        path = source(os.path.normpath(path))
        parts = path.relative_to(REPO).parts  # an install's metadata (<src>/<name>.egg-info/) is no source
        if parts[0] not in NOT_SOURCES and not any(p.endswith(".egg-info") for p in parts) and path not in RUNNER:
            current["opened"].add(str(path))


def audit(event, args):
    if current["opened"] is None:
        return
    if event == "open":
        note(args[0])
    elif event in SPAWN_EVENTS:  # a file named on a command line is run or read by the child
        for arg in args[1] if len(args) > 1 and isinstance(args[1], (list, tuple)) else ():
            note(arg)


def forget_our_modules(packages):
    for name in [n for n in sys.modules if n.split(".")[0] in packages]:
        del sys.modules[name]


def main(out, names):
    from execbook import cases  # judged with the module loaded before any example runs
    from execbook.config import PACKAGES, hook

    for name in ("check-entry", "judge"):  # the book's hooks too (execbook.config keeps them)
        hook(name)

    results = {}
    log = Path(tempfile.mkdtemp()) / "children.log"
    os.environ.update(
        BOOK_AUDIT_LOG=str(log),
        BOOK_AUDIT_REPO=str(REPO),
        PYTHONPATH=os.pathsep.join([str(REPO / "tests" / "audit_site"), str(REPO)]),
    )
    sys.addaudithook(audit)
    for name in [n for n in cases.manifest() if not names or n in names]:
        forget_our_modules(PACKAGES)
        log.write_text("", encoding="utf-8")
        current["opened"] = set()
        start = time.perf_counter()
        run = cases.execute(name)
        current["opened"], opened = None, current["opened"]
        current["opened"] = opened  # the children's reads, filtered the same way
        for path in log.read_text(encoding="utf-8").split():
            note(path)
        current["opened"] = None
        outcome = cases.judge(cases.manifest()[name], run.error, run.namespace)
        results[name] = {
            "ok": outcome.ok,
            "failure": None if outcome.ok else outcome.failure(),
            "seconds": round(time.perf_counter() - start, 2),
            "opened": sorted(os.path.relpath(p, REPO) for p in opened),
        }
        print(f"{name}: {'ok' if outcome.ok else 'FAILED'} ({results[name]['seconds']} s)", file=sys.stderr, flush=True)
    Path(out).write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
