"""The book's build and the test suite, measured in one run (figures, not a timed test):
`nox -s bench -- docs_build`. Every figure is also given in run-A units (one `minigpt train
inplace=false` in a fresh process, the median of UNIT_RUNS before the rest and as many after), so
the ratios hold on a shared, noisy machine. On a scratch copy with an empty build folder:
- the source check (`python -m execbook check`);
- the floor: each executed page's examples as plain Python (`execbook.cases.execute`, a process per
  page, two at a time, in the build's order, sharing one fresh store as the build's pages do);
- a cold build; a no-change, a prose-edit and a one-safe-page-example rebuild, with what each executed;
- in this checkout, its site brought up to date first (untimed, as `nox -s docs` does), `nox -s
  tests`'s pytest twice (the second warm) and `nox -s e2e`'s, each with the SLOWEST tests that took longest.

Targets (issue 45): cold build <= 1.3x the floor; rebuild after one safe-page example <= 3.5 units;
tests, warm, <= 23 units; end-to-end tests <= 60 units; both together <= 80 units.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

from execbook import build as book
from execbook import config, pages

sys.path.insert(0, str(config.REPO / "tests"))
from conftest import copy_repository  # noqa: E402 - the tests' scratch copies, made the same way

PROSE_EDIT = "\nA sentence added by the benchmark: prose only.\n"
CODE_EDIT = "\n# a comment added by the benchmark\n"
BREAK_PAGE = "breaks/25-inplace-autograd.md"
SAFE_EXAMPLE = "examples/safe_masked_fill.py"


def timed(command, cwd, env=None):
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"bench: {' '.join(map(str, command))} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds, done.stdout


UNIT_RUNS = 2
SLOWEST = 40  # pytest's --durations


def run_a_units(scratch):
    """Seconds of UNIT_RUNS run-A trainings from the command line, one after the other (each a
    fresh process, torch import included)."""
    command = [sys.executable, "-m", "minigpt", "train", "inplace=false", f"out={scratch}/run-a"]
    return [timed(command, scratch)[0] for _ in range(UNIT_RUNS)]


FLOOR_RUN = """import sys
from execbook import cases
for name in sys.argv[1:]:
    outcome = cases.execute(name).outcome
    assert outcome.ok, outcome.failure()
"""


def floor(repo, store):
    """(seconds, pages, examples) of the floor (the module's docstring) in repo, a copy of this checkout."""
    first = book.check_sources()  # this checkout's pages, which the copy holds
    needs = book.waits_for(first, list(first))
    cells = {d: sum(c.cell_type == "code" for c in nb.cells) for d, nb in first.items()}
    env = dict(os.environ, PYTHONPATH=str(repo), MPLBACKEND="Agg", OMP_NUM_THREADS="1")
    env.update(config.environment(store))
    start, done, waiting, running = time.perf_counter(), set(), dict(needs), {}
    with ThreadPoolExecutor(book.WORKERS) as pool:
        while waiting or running:
            # the build's order (execbook.build.execute): a page that waited for others first, then the biggest
            ready = sorted((d for d in waiting if needs[d] <= done), key=lambda d: (-len(needs[d]), -cells[d]))
            for docname in ready[: book.WORKERS - len(running)]:
                del waiting[docname]
                command = [sys.executable, "-c", FLOOR_RUN, *pages.examples(first[docname])]
                running[pool.submit(timed, command, repo, env)] = docname
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            done |= {running.pop(job) for job in finished if job.result()}
    return time.perf_counter() - start, len(first), sum(len(pages.examples(nb)) for nb in first.values())


def build(repo):
    """(wall seconds of both languages, the build's execution report)."""
    seconds, _ = timed([sys.executable, "-m", "execbook", "build"], repo)
    report = repo / config.EXECUTION_REPORT.relative_to(config.REPO)
    return seconds, json.loads(report.read_text(encoding="utf-8"))


def last_line(output):
    """pytest's summary line ("... passed ... in ...s")."""
    return next((line.strip("= ") for line in reversed(output.splitlines()) if line.strip()), "")


def append(path, text):
    with open(path, "a", encoding="utf-8") as file:
        file.write(text)


def main():
    with tempfile.TemporaryDirectory(prefix="bench-docs-") as folder:
        folder = Path(folder)
        units = run_a_units(folder)
        repo = copy_repository(folder / "repo", keep_build=False)
        check = timed([sys.executable, "-m", "execbook", "check"], repo)[0]  # what every build runs first
        floor_seconds, floor_pages, floor_examples = floor(repo, folder / "floor-store")
        results = {"cold build, both languages": build(repo), "no-change rebuild": build(repo)}
        for language in config.LANGUAGES:
            append(repo / "docs" / language / BREAK_PAGE, PROSE_EDIT)
        results["prose-edit rebuild"] = build(repo)
        append(repo / SAFE_EXAMPLE, CODE_EDIT)
        results["one safe-page example edited"] = build(repo)
        build(config.REPO)  # this checkout's site up to date (untimed), as after nox -s docs
        pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--durations={SLOWEST}", "-m"]
        runs = [timed([*pytest, "not e2e"], config.REPO) for _ in range(2)]
        e2e, e2e_output = timed([*pytest, "e2e"], config.REPO)
        tests = [seconds for seconds, _ in runs]
        units += run_a_units(folder)

    unit = statistics.median(units)
    print(
        f"run-A unit (`minigpt train inplace=false`, 150 steps): {', '.join(f'{u:.1f}' for u in units)} s, "
        f"median {unit:.1f} s\n"
    )
    print(f"{'what':<32} {'seconds':>8} {'units':>6}   executed (once for both languages)")
    print(
        f"{'floor: examples as plain Python':<32} {floor_seconds:8.1f} {floor_seconds / unit:6.1f}   "
        f"{floor_pages} pages, {floor_examples} examples, one process per page"
    )
    for name, (seconds, report) in results.items():
        executed = (
            f"{len(report['executed'])} pages, {report['cells_executed']} cells, {len(report['experiments'])} computed"
        )
        print(f"{name:<32} {seconds:8.1f} {seconds / unit:6.1f}   {executed}")
    print(f"{'source check (execbook check)':<32} {check:8.1f} {check / unit:6.1f}   nothing executed")
    print(f"{'tests (nox -s tests), cold':<32} {tests[0]:8.1f} {tests[0] / unit:6.1f}   {last_line(runs[0][1])}")
    print(f"{'tests (nox -s tests), warm':<32} {tests[1]:8.1f} {tests[1] / unit:6.1f}   {last_line(runs[1][1])}")
    print(f"{'end-to-end tests (nox -s e2e)':<32} {e2e:8.1f} {e2e / unit:6.1f}   {last_line(e2e_output)}\n")
    cold = results["cold build, both languages"][0]
    for what, value, target, measure in [
        ("cold build / floor", cold / floor_seconds, 1.3, "x    "),
        ("rebuild after one safe-page example", results["one safe-page example edited"][0] / unit, 3.5, " units"),
        ("tests, warm", tests[1] / unit, 23, " units"),
        ("end-to-end tests", e2e / unit, 60, " units"),
        ("tests and end-to-end tests together", (tests[1] + e2e) / unit, 80, " units"),
    ]:
        print(f"{what:<40} {value:5.1f}{measure}   target <= {target:<4} {'met' if value <= target else 'MISSED'}")
    for output in (runs[1][1], e2e_output):  # the tests that took longest, warm and end-to-end
        lines = output.splitlines()
        slowest = next((i for i, line in enumerate(lines) if line.startswith("=") and "slowest" in line), len(lines))
        print("\n".join(["", *lines[slowest : slowest + SLOWEST + 1]]))


if __name__ == "__main__":
    main()
