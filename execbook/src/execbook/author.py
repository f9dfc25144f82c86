"""The author's fast loop (AUTHORING.md): `python -m execbook run EXAMPLE` runs an example as its cell
and guard do, in a process of its own (what it prints and glues, the verdict); `page PAGE`, one page's
cells in a kernel, kept for the next build. Both use the last build's store, so nothing slow runs
again, and exit 1 with the build's explanation on a failure."""

import argparse
import difflib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import NoReturn

from . import build, cases, config, kernel, lifetime, pages, quotes, source


def run(name: str) -> int:
    if name not in cases.manifest():
        close = difflib.get_close_matches(name, list(cases.manifest()), n=3)  # a typo, as the check offers
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        print(f"execbook: error: no example {name!r} in examples/cases.toml{hint}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    if problem := source.unreadable(cases.manifest()[name].path, python=True):
        print(problem, file=sys.stderr)
        return 1
    for note in quotes.flipped(config.MANIFEST):
        print(note, file=sys.stderr)
    tree = source.page_sources(config.DOCS / next(iter(config.LANGUAGES)))
    loading = [d for d, p in tree.items() if f"/{name}.py" in p.read_text("utf-8", "replace")]
    where = f"{', '.join(loading) or 'no page'} ({', '.join(config.LANGUAGES)})"  # as the build names it
    try:
        done = cases.execute(name)
    except Exception as failed:  # noqa: BLE001 - a hidden check failed: say where
        print(cases.check_failure(cases.manifest()[name], failed, quotes.guarded).render(where), file=sys.stderr)
        return 1
    outcome = done.outcome
    assert outcome is not None, "cases.execute judges every run"
    sys.stdout.write(done.stdout)
    if done.error is not None:
        print(f"[{type(done.error).__name__}: {str(done.error).splitlines()[0][:200]}]")
    for key, value in done.glued.items():
        shown = str(value).replace("\n", " ")
        print(f"glued {key} = {shown[:70]}{'…' if len(shown) > 70 else ''}")
    if not outcome.ok:
        print(cases.case_failure(outcome).render(where), file=sys.stderr)
        return 1
    print(f"execbook: ok, examples/{name}.py {outcome.seen} ({time.perf_counter() - start:.1f} s)")
    return 0


def watched(name: str) -> int:
    """run(name) in a child process watched as a page's kernel is (kernel.watch): a statement that runs
    long is named every build.PROGRESS_S, one that ends the process at its line."""
    if name not in cases.manifest():
        return run(name)  # which names the examples it may be
    place = f"examples/{name}.py"
    print(f"execbook: running {place} in a process of its own ...", flush=True)
    with TemporaryDirectory() as folder:
        where, done = Path(folder, "run.where"), Path(folder, "done")
        code = f"from {__package__} import author; author.child({name!r}, {str(where)!r}, {str(done)!r})"
        start, process = time.perf_counter(), subprocess.Popen([sys.executable, "-c", code], start_new_session=True)

        def statement() -> str:
            line = cases.line_in(cases.manifest()[name], kernel.running(where))
            return place + (f":{line}" if line else "")

        signal.signal(signal.SIGTERM, lifetime.stopped)  # SIGTERM raises, as Ctrl-C does: the group ends too
        try:
            while True:
                try:
                    status = process.wait(build.PROGRESS_S)
                    break
                except subprocess.TimeoutExpired:
                    seconds = time.perf_counter() - start
                    print(f"execbook: {statement()} still running after {seconds:.0f} s", flush=True)
        except (KeyboardInterrupt, lifetime.Interrupted) as stopped:
            print(f"execbook: interrupted while {statement()} ran", file=sys.stderr)
            return getattr(stopped, "status", 128 + signal.SIGINT)
        finally:
            lifetime.end(process.pid)  # and whatever the example started
        if done.exists():
            return status
        ended = build.ended(status)
        print(f"execbook: {statement()}, the process ended while this statement ran: {ended}", file=sys.stderr)
        return 1


def child(name: str, where: str, done: str) -> NoReturn:
    """The child process of `watched`: run(name), watched as a page's kernel is; `done` once it ends."""
    kernel.watch(where)
    status = run(name)
    sys.stdout.flush()
    sys.stderr.flush()
    Path(done).touch()
    sys.exit(status)


def page(target: str) -> int:
    path = Path(target) if Path(target).suffix else config.DOCS / next(iter(config.LANGUAGES)) / f"{target}.md"
    if not path.is_file() or not pages.is_executed(path.read_text("utf-8")):
        what = "a docname such as breaks/25-inplace-safe, or the path of its .md"
        print(f"execbook: error: {target} is not an executed page ({what})", file=sys.stderr)
        return 2
    docname = path.resolve().relative_to(config.DOCS).with_suffix("").as_posix().split("/", 1)[1]
    try:
        notebooks = build.check_sources()
    except build.BuildFailed as failed:
        print(f"execbook: {failed}", file=sys.stderr)
        return 1
    try:
        with lifetime.held(config.BUILD, build.say):  # one build per checkout at a time
            build.execute(notebooks, [docname])
    except (KeyboardInterrupt, lifetime.Interrupted) as stopped:
        print(f"execbook: interrupted; {docname} was not kept in the execution cache", file=sys.stderr)
        return getattr(stopped, "status", 128 + signal.SIGINT)
    except build.BuildFailed as failed:
        print(f"\n{failed}", file=sys.stderr)
        return 1
    return 0


def main(given: argparse.Namespace) -> int:
    if config.STORE.is_dir() or given.command == "page":  # a page's guards keep their failures there (build.explain)
        build.kernel_environment()
    else:
        os.environ.setdefault("MPLBACKEND", "Agg")
    if given.command == "page":
        return page(given.page)
    return watched(Path(given.example).stem if given.example.endswith(".py") else given.example)
