"""Shared fixtures: the data set, cached short training runs, a runner for the CLI, and, for
the end-to-end tests, the built book twice (this checkout's, and a cold build of a copy elsewhere).

Training is the expensive part of the suite, so every run is made once per session and
shared. Runs are short (FEW_STEPS) wherever the behaviour under test does not depend on the
number of steps: the step-0 probe gradients, for example, are taken before the first update.
Both suites spread over the machine's cores (pytest-xdist; see SUITES below).
"""

import contextlib
import fcntl
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path
from unittest import mock

import pytest

from execbook import config
from execbook.build import kernel_environment
from minigpt.data import build_dataset
from minigpt.train import TrainConfig, model_config, train

REPO = config.REPO
FEW_STEPS = 3
SUBPROCESS_TIMEOUT_S = 300
SITE = config.SITE
BUILD = [sys.executable, "-m", "execbook", "build"]  # run in the repository (or copy) to build
CHROMIUM = "/usr/bin/chromium"  # Debian's (apt-get install -y chromium), driven by Playwright
# minigpt's command line speaks the terminal's language (minigpt/words.py): the tests read its English,
# on any developer's machine; a test of another language sets its own
os.environ["LANGUAGE"] = "en"

# What a scratch copy of a checkout leaves out (the tests and the benchmark build in copies).
NOT_COPIED = (".git", ".nox", ".venv", "experiments", "__pycache__", "*.egg-info", ".pytest_cache")


def copy_repository(destination, keep_build=True, repository=None):
    """A scratch copy of this checkout, or of another copy (with its build state unless keep_build
    is False)."""
    ignore = shutil.ignore_patterns(*NOT_COPIED, *(() if keep_build else (config.BUILD.name,)))
    shutil.copytree(repository or REPO, destination, ignore=ignore, symlinks=True)  # docs/_build/html: a link
    return Path(destination)


def own_packages(repo):
    """PYTHONPATH for a process that must import a copy's own packages: its root's, and its
    distributions' src folders (execbook/src, inplace_doctor/src), not this checkout's installs."""
    return os.pathsep.join(str(folder) for folder in (repo, *sorted(Path(repo).glob("*/src"))))


def needs(reason):
    """A tool the test needs is missing: a failure in CI, which must install it; a skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(folder):
    """A local HTTP server of `folder` (as a static host serves it): yields its address."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


def build(repo, *languages, timeout=1800):
    """`python -m execbook build` in repo (a copy: its own packages, PYTHONPATH), no stdin."""
    env = dict(os.environ, PYTHONPATH=own_packages(repo))
    return subprocess.run(
        [*BUILD, *languages],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def execution_report(repo=REPO):
    """What the last build of repo executed and computed (execbook.build)."""
    return json.loads((repo / config.EXECUTION_REPORT.relative_to(REPO)).read_text(encoding="utf-8"))


# What may differ between two builds of one commit: dates (the build date, each page's stamp time
# and when it ran, on the status page), nothing else (tests/test_reproducible.py).
DATE = re.compile(rb"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?(?: UTC)?)?")


def site_files(site):
    """relative path -> bytes of every file of a published site, dates blanked (DATE)."""
    site = Path(site)
    return {
        p.relative_to(site).as_posix(): DATE.sub(b"<date>", p.read_bytes())
        for p in sorted(site.rglob("*"))
        if p.is_file()
    }


def site_differences(site_a, site_b):
    """One line per file that two published sites do not share, or that differs beyond its dates
    (with the first line that differs)."""
    a, b = site_files(site_a), site_files(site_b)
    lines = [
        f"only in {site}: {path}"
        for site, mine, other in ((site_a, a, b), (site_b, b, a))
        for path in sorted(set(mine) - set(other))
    ]
    for path in sorted(set(a) & set(b)):
        if a[path] != b[path]:
            at = next(
                (i for i, (x, y) in enumerate(zip(a[path], b[path], strict=False)) if x != y),
                min(len(a[path]), len(b[path])),
            )
            start = max(a[path].rfind(b"\n", 0, at) + 1, at - 80)  # from the line's start, or 80 bytes back
            lines.append(f"{path}: {a[path][start : at + 80]!r} != {b[path][start : at + 80]!r}")
    return lines


OFFLINE = ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up 2>/dev/null; exec "$@"', "offline"]


def _snapshot(directory):
    return sorted(str(p.relative_to(directory)) for p in Path(directory).rglob("*"))


@pytest.fixture(scope="session")
def snapshot():
    """snapshot(directory): every path below it (relative), to prove a command wrote nothing."""
    return _snapshot


@pytest.fixture(scope="module")
def as_the_build():
    """For a module: the environment the build gives its kernels (execbook.build.kernel_environment: its
    result store, one intra-op thread unless OMP_NUM_THREADS says otherwise), so that the claims and the
    torch.compile runs the last build computed are read back, not computed again (inductor compiles C++:
    tens of seconds); what the store lacks is computed here, as the build would, and kept there.
    Results are bitwise only at one thread count, so their keys name it (minigpt.experiments.described):
    none computed otherwise is read back."""
    import torch

    threads = torch.get_num_threads()
    with mock.patch.dict(os.environ):
        kernel_environment()
        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
        yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def tool_env():
    """The environment for subprocesses: this interpreter's bin directory first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("PYTHONPATH", None)  # `minigpt` must come from the installed package
    # One intra-op thread per subprocess: several run at once, and on a busy 2-core machine two
    # threads per tiny training made it 5-20x slower (bench/train_speed.py). Exit codes and
    # messages, all that the subprocess tests assert, do not depend on it.
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


@pytest.fixture(scope="session")
def installed_project(tmp_path_factory):
    """A folder holding the project as `pip install` (not editable) puts it in site-packages, built
    from a copy of its packages outside the repository: with it first on PYTHONPATH, a process
    imports the installed packages, which find none of the repository's files (execbook.config,
    which reads pyproject.toml beside its package, fails to import there, as in a reader's Python)."""
    import tomllib

    source = tmp_path_factory.mktemp("project-source")
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, source / name)
    for package in {p.rstrip("*.") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]}:
        shutil.copytree(REPO / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    # the diagnoser and the engine, distributions of their own that the project depends on (their pyproject.toml)
    parts = [tmp_path_factory.mktemp(f"{part}-source") / part for part in ("inplace_doctor", "execbook")]
    for part in parts:
        shutil.copytree(REPO / part.name, part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    target = tmp_path_factory.mktemp("site-packages")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
        + ["--target", str(target), str(source), *map(str, parts)],
        check=True,
        capture_output=True,
        timeout=SUBPROCESS_TIMEOUT_S,
    )
    return target


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def subprocess_timeout():
    return SUBPROCESS_TIMEOUT_S


@pytest.fixture(scope="session")
def data():
    return build_dataset()


@pytest.fixture(scope="session")
def trained(data):
    """trained(steps=..., seed=..., **switches) -> RunResult, trained once per session per key."""
    cache = {}

    def get(steps=FEW_STEPS, seed=0, detect_anomaly=False, **switches):
        key = (steps, seed, detect_anomaly, tuple(sorted(switches.items())))
        if key not in cache:
            settings = TrainConfig(steps=steps, seed=seed, detect_anomaly=detect_anomaly)
            cache[key] = train(model_config(data, **switches), settings, data)
        return cache[key]

    return get


@pytest.fixture(scope="session")
def few_steps():
    return FEW_STEPS


@pytest.fixture(scope="session")
def run_control(trained):
    """Run A (the out-of-place residual), short."""
    return trained()


@pytest.fixture(scope="session")
def minigpt_command():
    """The argv prefix that runs the CLI exactly as the justfile does (python -m minigpt)."""
    return [sys.executable, "-m", "minigpt"]


# --- every example, run once in a background process (tests/run_examples.py) while the other
# tests run: test_examples.py reads what each did, test_deps.py what each opened.

_examples = {}


# End-to-end tests (nox -s e2e): whole builds of the book, the browser, the reproducer through
# `just`, the project installed apart (pip, then a reader's kernel or script). They are marked here,
# from what they use, rather than one by one.
E2E_FIXTURES = {"site", "cold_build", "reproducer", "installed_project"}
# A suite's run (-m e2e, nox -s e2e; -m "not e2e", nox -s tests) spreads its tests over the machine's
# cores (pytest-xdist's -n auto, --dist loadgroup), unless -n is given: most tests drive one browser tab,
# one training or one subprocess, and leave a core idle. The tests that share an expensive fixture run in
# one worker, so that it is made once (`made_once` fails the run otherwise), the longest first (this
# order); the others go one by one to whichever worker is free. The cold build is made once for both
# workers (cold_build): the modules that go on from it (each a group of its own, for its module-scoped
# copy) run side by side. The trainings that `trained` keeps are made by the worker that runs its tests;
# the background run of every example (example_results), by the first worker, for all of them.
SUITES = ("e2e", "not e2e")
SHARED_FIXTURES = {
    "cold_build": "cold-build",
    "runs": "downloads",
    "reproducer": "reproducer",
    "new_book": "new-book",
    "installed_project": "downloads",  # the downloads' runs use it too: installed once
    "trained": "trainings",
}
PER_MODULE = {"cold_build"}  # shared by every worker: one group per module
FIRST_ALONE = ["axe_script"]  # the longest of the tests that go one by one (axe-core on every page)


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: an end-to-end test (whole builds, the browser, just): nox -s e2e")
    config.addinivalue_line("markers", "reads_example_results: reads what the examples did (-k can select it)")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads -n
def pytest_cmdline_main(config):
    if hasattr(config, "workerinput"):  # a worker parses the command line, not the options set below
        config.option.loadgroup = config.option.loadgroup or config.workerinput.get("loadgroup", False)
        return
    spread = (
        config.option.markexpr in SUITES
        and config.pluginmanager.hasplugin("xdist")
        and getattr(config.option, "numprocesses", 0) is None
        and not config.option.collectonly
    )
    if spread:
        config.option.numprocesses, config.option.dist = "auto", "loadgroup"
        config.option.loadscopereorder = False  # the order below, not the number of tests per group


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's, in the controller: what each worker is told
def pytest_configure_node(node):
    node.workerinput["loadgroup"] = node.config.option.dist == "loadgroup"


@pytest.hookimpl(tryfirst=True)  # before -m selects by marker, and before pytest-xdist reads the groups
def pytest_collection_modifyitems(items):
    for item in items:
        if E2E_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.e2e)
        if "example_results" in item.fixturenames:
            item.add_marker(pytest.mark.reads_example_results)
        for fixture, group in SHARED_FIXTURES.items():
            if fixture in item.fixturenames:
                module = f":{item.module.__name__}" if fixture in PER_MODULE else ""
                item.add_marker(pytest.mark.xdist_group(group + module))
    first = [*SHARED_FIXTURES, *FIRST_ALONE]
    # the tests that read what the examples did last: the other tests run meanwhile
    items.sort(
        key=lambda item: (
            "example_results" in item.fixturenames,
            next((i for i, f in enumerate(first) if f in item.fixturenames), len(first)),
        )
    )


@pytest.hookimpl(trylast=True)  # after -m and -k chose the tests to run
def pytest_collection_finish(session):
    waiting = [item for item in session.items if "example_results" in item.fixturenames]
    if not waiting or session.config.option.collectonly:
        return
    # One run for all the workers of a pytest-xdist run (they share its id), started by the first one
    # (a pytest that a test starts inherits the id in its environment, not the worker's input).
    run = getattr(session.config, "workerinput", {}).get("testrunuid")
    scratch = Path(tempfile.gettempdir()) / f"examples-{run}" if run else Path(tempfile.mkdtemp())
    scratch.mkdir(exist_ok=True)
    _examples["scratch"] = scratch
    with open(scratch / "started.lock", "a+", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (scratch / "printed.txt").exists():
            return
        printed = open(scratch / "printed.txt", "w", encoding="utf-8")  # noqa: SIM115 - the process's, until it ends
    # Nothing computed before: an empty store. As in the book's build (the environment it sets),
    # an experiment is computed once and then read back by the examples that report it again
    # (the reproducer's command-line runs A and bypass=hooks are those of silent_training).
    env = dict(os.environ, OMP_NUM_THREADS="1", MPLBACKEND="Agg", **config.environment(scratch / "store"))
    process = subprocess.Popen(
        [
            sys.executable,
            str(REPO / "tests" / "run_examples.py"),
            str(scratch / "examples.json"),
            *examples_read(waiting),
        ],
        cwd=REPO,
        env=env,
        stdout=printed,
        stderr=subprocess.STDOUT,
    )

    def ended():  # its status, for every worker
        (scratch / "status.part").write_text(str(process.wait()), encoding="utf-8")
        (scratch / "status.part").replace(scratch / "status")
        printed.close()

    _examples.update(process=process, status=threading.Thread(target=ended, daemon=True))
    _examples["status"].start()


def examples_read(items):
    """The examples these tests read (each names its example: its `name` parameter) and those they
    depend on; none (meaning every example) when one of the tests does not name its example."""
    from execbook import deps

    named = [item.callspec.params.get("name") if hasattr(item, "callspec") else None for item in items]
    if not all(named):
        return []
    return sorted({entry for name in named for entry in deps.example_entries(name)})


def pytest_sessionfinish(session, exitstatus):
    process = _examples.get("process")
    if process is not None and process.poll() is None:
        if hasattr(session.config, "workerinput") and exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            _examples["status"].join(timeout=SUBPROCESS_TIMEOUT_S)  # another worker reads what it did
        else:
            process.kill()


@pytest.fixture(scope="session")
def example_results():
    """name -> {"ok", "failure", "seconds", "opened"} of every example in examples/cases.toml."""
    scratch, deadline = _examples["scratch"], time.monotonic() + SUBPROCESS_TIMEOUT_S
    while not (scratch / "status").exists():
        assert time.monotonic() < deadline, f"tests/run_examples.py still runs after {SUBPROCESS_TIMEOUT_S} s"
        time.sleep(0.5)
    printed = (scratch / "printed.txt").read_text(encoding="utf-8")
    assert (scratch / "status").read_text(encoding="utf-8") == "0", f"tests/run_examples.py failed:\n{printed[-3000:]}"
    return json.loads((scratch / "examples.json").read_text(encoding="utf-8"))


# --- the built book, twice: this checkout's, and a cold build elsewhere (end-to-end tests)


@pytest.fixture(scope="session")
def site():
    """Build the book (incremental: cheap when nothing changed) and return the site folder. The
    workers of one pytest-xdist run share that build: the first one builds, the others wait for it
    and find it done (the lock file holds the run's id)."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    SITE.parent.mkdir(parents=True, exist_ok=True)
    with open(SITE.parent / "site-build.lock", "a+", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.seek(0)
        if run is None or lock.read() != run:
            done = subprocess.run(BUILD, cwd=REPO)
            assert done.returncode == 0, "the docs build failed (its last lines say why)"
            lock.seek(0)
            lock.truncate()
            lock.write(run or "")
    return SITE


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, through Playwright (never a downloaded browser)."""
    if not Path(CHROMIUM).exists():
        needs(f"{CHROMIUM} is missing: `apt-get install -y chromium` (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def offline():
    """offline(command): the command, run in a network namespace of its own (loopback only), or
    None if the machine does not allow it."""
    try:
        allowed = subprocess.run([*OFFLINE, "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        allowed = False
    return lambda command: [*OFFLINE, *command] if allowed else None


def run_folder(tmp_path_factory):
    """The run's temporary folder, which its pytest-xdist workers share."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root


@pytest.fixture(scope="session")
def made_once(tmp_path_factory):
    """made_once(name): fails if this run already made the fixture `name`, in this worker or in
    another (pytest-xdist did not keep the tests that share it together: SHARED_FIXTURES)."""
    root = run_folder(tmp_path_factory)

    def made(name):
        try:
            (root / f"made-{name}").touch(exist_ok=False)
        except FileExistsError:
            pytest.fail(f"the fixture {name} was made twice in one run: its tests ran on two workers")

    return made


@pytest.fixture(scope="session")
def cold_build(tmp_path_factory, offline):
    """(copy, finished process): a scratch copy of the repository in another directory, without
    the build state, built cold (both languages), offline where the machine allows. Made once per
    run, by the worker that needs it first (the others wait for it, and read what it printed):
    tests/test_reproducible.py compares its site with this checkout's, test_build_output.py reads
    what it printed, test_freshness.py, test_failures.py, test_model_edits.py and test_scaffold.py
    go on from copies of it."""
    root = run_folder(tmp_path_factory)
    copy, printed = root / "somewhere" / "else" / "repo", root / "cold-build.json"
    with open(root / "cold-build.lock", "a+", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not printed.exists():
            copy_repository(copy, keep_build=False)
            cut = offline(BUILD)
            if cut is None:
                warnings.warn(
                    "the cold build ran with the network on: unshare --net is not permitted here", stacklevel=2
                )
            done = subprocess.run(
                cut or BUILD,
                cwd=copy,
                env=dict(os.environ, PYTHONPATH=own_packages(copy)),
                capture_output=True,
                text=True,
                timeout=1800,
                stdin=subprocess.DEVNULL,
            )
            printed.write_text(json.dumps([done.returncode, done.stdout, done.stderr]), encoding="utf-8")
    done = subprocess.CompletedProcess(BUILD, *json.loads(printed.read_text(encoding="utf-8")))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return copy, done
