"""A build you can kill, or run twice (execbook.lifetime, execbook.build.publish): one build per
checkout at a time; nothing it started outlives it, SIGKILL included, so that no process of a
killed build writes the next one's store; an interrupted build says one line; and at every
instant docs/_build/html is the last good site or the new one.

The builds run on the tiny book of test_engine_reuse.py, given a precompute hook whose pool
worker, and a page whose kernel's subprocess, wait while the file `hold` exists.
"""

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_engine_reuse import write_book

from execbook import build, config

HOOK = """\
import multiprocessing, os, time
from execbook import store


def slow():
    while os.path.exists("hold"):
        time.sleep(0.1)
    return 1


def work(_):
    return store.memoized("experiment", "shared", slow)


def precompute(workers):
    with multiprocessing.Pool(workers) as pool:
        pool.map(work, [0])
"""
HOOKED = "config.hook('precompute')"  # the command line of the hook's process and of its pool's
WAITS = """\
import os, subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
while os.path.exists("hold"):
    time.sleep(0.1)
"""


@pytest.fixture
def book(tmp_path):
    root = tmp_path / "book"
    root.mkdir()
    write_book(root)
    with open(root / "pyproject.toml", "a", encoding="utf-8") as pyproject:
        pyproject.write('\n[tool.book.hooks]\nprecompute = "tinyhook:precompute"\n')
    (root / "tinyhook").mkdir()
    (root / "tinyhook" / "__init__.py").write_text(HOOK, encoding="utf-8")
    example = root / "examples" / "tiny.py"
    example.write_text(WAITS + example.read_text(encoding="utf-8"), encoding="utf-8")
    (root / "hold").touch()
    return root


def start(root, command=("build",)):
    return subprocess.Popen(
        [sys.executable, "-m", "execbook", *command],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(root)),
    )


def read_until(process, text, timeout=120):
    """The lines process printed up to the first that contains text."""
    lines, deadline = [], time.monotonic() + timeout
    for line in process.stdout:
        lines.append(line)
        if text in line or time.monotonic() > deadline:
            break
    assert text in "".join(lines), "".join(lines)
    return lines


def pids(root, text):
    """The processes that run in root (their working directory) with text in their command line."""
    found = set()
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if Path(proc / "cwd").resolve().is_relative_to(root) and text in (proc / "cmdline").read_text().replace(
                "\0", " "
            ):
                if (proc / "stat").read_text().split(") ")[1][0] != "Z":
                    found.add(int(proc.name))
        except (OSError, IndexError):
            continue
    return found


def wait_for(condition, timeout=60):
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    return condition()


@pytest.mark.e2e
def test_a_killed_build_leaves_nothing_that_runs_or_writes_and_a_second_one_waits(book):
    # SIGKILL while the precompute hook's pool worker computes: the hook and its worker end too
    first = start(book)
    read_until(first, "computing the shared experiments")
    assert wait_for(lambda: len(pids(book, HOOKED)) >= 2), "the hook and its pool worker run"
    hook = pids(book, HOOKED)
    first.kill()
    first.wait()
    second = start(book)
    read_until(second, "computing the shared experiments")
    assert not hook & pids(book, HOOKED), "the first build's hook and worker ended with it"
    # a third build, started meanwhile, waits for the second, and says so
    third = start(book)
    waiting = read_until(third, "waiting for")
    assert f"waiting for the build that runs in this checkout (pid {second.pid}) to end" in waiting[-1]
    (book / "hold").unlink()  # a worker left by the first build would now write the store again
    second_out, second_err = second.communicate(timeout=300)
    assert second.returncode == 0, second_out + second_err
    assert "computed an experiment more than once" not in second_err
    third_out, third_err = third.communicate(timeout=300)
    assert third.returncode == 0, third_out + third_err
    assert "0 page(s) executed" in third_out, "the third build found the second's work"


def stopped_while_running(book, command, says, stop):
    """`python -m execbook <command>` stopped by signal stop once it says `says` and its example's
    subprocess sleeps: (its exit status, its stderr), once no process of it is left."""
    process = start(book, command)
    read_until(process, says)
    assert wait_for(lambda: pids(book, "time.sleep(600)")), "the example's subprocess started"
    started = pids(book, "")
    process.send_signal(stop)
    _, err = process.communicate(timeout=60)
    assert wait_for(lambda: not started & pids(book, "")), "no process of it is left"
    return process.returncode, err


# SIGINT (KeyboardInterrupt) and SIGTERM (lifetime.Interrupted) take one path out of a build: one of
# each, a command each. SIGKILL leaves the watcher to kill what the build started, while the precompute
# hook runs (the test above) and while Sphinx runs (test_a_build_killed_while_sphinx_runs...).
@pytest.mark.e2e
@pytest.mark.parametrize(
    "stop, command, said",
    [
        (signal.SIGTERM, ("build",), "docs: interrupted; the site was not updated\n"),
        (signal.SIGINT, ("page", "page"), "execbook: interrupted; page was not kept in the execution cache\n"),
    ],
    ids=["build-SIGTERM", "page-SIGINT"],
)
def test_a_build_stopped_while_a_page_runs_says_one_line_and_leaves_no_process(book, stop, command, said):
    (book / "tinyhook" / "__init__.py").write_text("def precompute(workers):\n    pass\n", encoding="utf-8")
    status, err = stopped_while_running(book, command, "executing page", stop)
    assert status == 128 + stop
    assert err.endswith(said) and "Traceback" not in err, err
    assert not (book / "docs" / "_build" / "html").exists(), "nothing published"


@pytest.mark.e2e
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_run_stopped_while_its_example_runs_ends_the_example_s_process_group_and_says_where(book, stop):
    """`python -m execbook run` runs its example in a child process leading a group of its own: Ctrl-C's
    SIGINT or a SIGTERM sent to it ends that group too (the example's subprocess included), in one line."""
    status, err = stopped_while_running(book, ("run", "tiny"), "running examples/tiny.py in a process of its own", stop)
    assert status == 128 + stop, err
    assert err.startswith("execbook: interrupted while examples/tiny.py") and err.endswith(" ran\n"), err
    assert "Traceback" not in err


def test_publishing_leaves_the_last_good_site_or_the_new_one_at_every_step(tmp_path, monkeypatch, in_tiny_book):
    """The build killed after each step of publishing (each file-system call it makes): html is
    the old site or the new one, whole; the next build's start tidies what was left."""
    monkeypatch.setitem(vars(config), "BUILD", tmp_path)
    monkeypatch.setitem(vars(config), "SITE", tmp_path / "html")
    monkeypatch.setitem(vars(config), "SITES", tmp_path / "sites")

    def site(text, languages=("en", "es")):
        fresh = build.new_site()
        for language in languages:
            (fresh / language).mkdir(parents=True)
            (fresh / language / "index.html").write_text(text, encoding="utf-8")
        return fresh

    def published():
        return {p.relative_to(config.SITE).as_posix(): p.read_text() for p in config.SITE.rglob("*") if p.is_file()}

    class Killed(BaseException):
        pass

    steps = [
        (os, "replace"),
        (os, "link"),
        (Path, "rename"),
        (Path, "symlink_to"),
        (Path, "unlink"),
        (shutil, "copytree"),
    ]
    for legacy in (True, False):  # a site published as a folder, before the links; then a link
        for kill_at in range(12):
            shutil.rmtree(tmp_path, ignore_errors=True)
            tmp_path.mkdir()
            if legacy:
                (config.SITE / "en").mkdir(parents=True)
                (config.SITE / "es").mkdir()
                for language in ("en", "es"):
                    (config.SITE / language / "index.html").write_text("old", encoding="utf-8")
            else:
                build.publish(site("old"), ("en", "es"))
            fresh, calls = site("new", ("en",)), []
            with monkeypatch.context() as patched:
                for owner, name in steps:
                    real = getattr(owner, name)

                    def counted(*args, real=real, calls=calls, kill_at=kill_at, **kwargs):
                        calls.append(real)
                        if len(calls) > kill_at:
                            raise Killed
                        return real(*args, **kwargs)

                    patched.setattr(owner, name, counted)
                try:
                    build.publish(fresh, ("en",))
                except Killed:
                    pass
            if len(calls) <= kill_at:
                break  # published before the kill
            build.new_site()  # the next build starts
            assert published() in ({"en/index.html": t, "es/index.html": "old"} for t in ("old", "new"))
        assert published() == {"en/index.html": "new", "es/index.html": "old"}


@pytest.mark.e2e
def test_a_cold_build_is_a_flag_and_executes_every_page_again(book):
    (book / "hold").unlink()
    again = [sys.executable, "-m", "execbook", "build"]
    runs = [subprocess.run([*again, *flag], cwd=book, capture_output=True, text=True) for flag in ([], [], ["--cold"])]
    assert [r.returncode for r in runs] == [0, 0, 0], runs[-1].stderr
    assert ["1 page(s) executed" in r.stdout for r in runs] == [True, False, True]
    report = json.loads((book / "docs" / "_build" / "execution.json").read_text(encoding="utf-8"))
    assert "experiment:shared" in report["experiments"], "the store too starts empty"
    wrong = subprocess.run([*again, "--colder"], cwd=book, capture_output=True, text=True)
    said = "execbook: error: unrecognized arguments: --colder (see execbook --help)\n"
    assert (wrong.returncode, wrong.stderr) == (2, said)


@pytest.mark.e2e
def test_a_build_killed_while_sphinx_runs_leaves_no_sphinx_and_the_last_site(book):
    (book / "tinyhook" / "__init__.py").write_text("def precompute(workers):\n    pass\n", encoding="utf-8")
    (book / "hold").unlink()
    assert subprocess.run([sys.executable, "-m", "execbook", "build"], cwd=book, capture_output=True).returncode == 0
    site = (book / "docs" / "_build" / "html").resolve()
    (book / "docs" / "en" / "page.md").write_text(
        (book / "docs" / "en" / "page.md").read_text(encoding="utf-8") + "\nMore prose.\n", encoding="utf-8"
    )
    process = start(book)
    assert wait_for(lambda: pids(book, "-m sphinx"), timeout=120), "Sphinx started"
    process.kill()
    process.wait()
    assert wait_for(lambda: not pids(book, ""), timeout=3), "no Sphinx left (it would run for seconds more)"
    assert (book / "docs" / "_build" / "html").resolve() == site and (site / "en" / "page.html").is_file()


def test_a_build_stopped_while_it_waits_for_another_says_one_line(book):  # no build: it waits at the lock
    lock_file = book / "docs" / "_build" / "build.lock"
    lock_file.parent.mkdir(parents=True)
    lock_file.write_text("4242\n", encoding="utf-8")
    with open(lock_file, encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another build holds it
        process = start(book)
        assert "(pid 4242) to end" in read_until(process, "waiting for")[-1]
        process.terminate()
        _, err = process.communicate(timeout=60)
    assert process.returncode == 143 and err == "docs: interrupted; the site was not updated\n", err
