"""The book's build and the test suite, measured in one run (figures, not a timed test):

    nox -s bench -- docs_build

The source check (`python -m execbook check`, which executes nothing) is timed too.
Every figure is also given in run-A units: the wall time of one `minigpt train inplace=false`
(150 steps, a fresh process), measured in this same run, UNIT_RUNS times before the rest and as
many after, the median taken, so the ratios hold on a shared, noisy machine (one slow run, while
something else ran, would flatter every ratio). On a scratch copy of the repository with an empty
build folder:
- a cold build of both languages (`python -m execbook build`: each page executed once, then Sphinx
  builds Spanish, then English);
- a no-change rebuild, a prose-edit rebuild and the rebuild after editing one example of the
  safe-cases page, with the pages and cells each executed (docs/_build/execution.json);
- on a second scratch copy that keeps this checkout's build state, brought up to date first (the
  copy's new paths make Sphinx read every page again; untimed, as a contributor runs the tests
  after `nox -s docs`), what `nox -s tests` runs (pytest -m "not e2e"), twice (the second run is
  the warm one), and what `nox -s e2e` runs.

Targets (issues 11 and 20): cold build <= 8 units; rebuild after one safe-page example <= 3 units;
tests, warm, <= 23 units; tests and end-to-end tests together <= 45 units.
"""

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from execbook import config
from execbook.build import copy_repository

PROSE_EDIT = "\nA sentence added by the benchmark: prose only.\n"
CODE_EDIT = "\n# a comment added by the benchmark\n"
BREAK_PAGE = "breaks/25-inplace-autograd.md"
SAFE_EXAMPLE = "examples/safe_masked_fill.py"


def timed(command, cwd):
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"bench: {' '.join(map(str, command))} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds, done.stdout


UNIT_RUNS = 2


def run_a_units(scratch):
    """Seconds of UNIT_RUNS run-A trainings from the command line, one after the other (each a
    fresh process, torch import included)."""
    return [
        timed([sys.executable, "-m", "minigpt", "train", "inplace=false", f"out={scratch}/run-a"], scratch)[0]
        for _ in range(UNIT_RUNS)
    ]


def build(repo):
    """(wall seconds of both languages, the build's execution report)."""
    seconds, _ = timed([sys.executable, "-m", "execbook", "build"], repo)
    report = repo / config.EXECUTION_REPORT.relative_to(config.REPO)
    return seconds, json.loads(report.read_text(encoding="utf-8"))


def append(path, text):
    with open(path, "a", encoding="utf-8") as file:
        file.write(text)


def main():
    with tempfile.TemporaryDirectory(prefix="bench-docs-") as folder:
        folder = Path(folder)
        units = run_a_units(folder)
        repo = copy_repository(folder / "repo", keep_build=False)
        check = timed([sys.executable, "-m", "execbook", "check"], repo)[0]  # what every build runs first
        results = {"cold build, both languages": build(repo), "no-change rebuild": build(repo)}
        for language in config.LANGUAGES:
            append(repo / "docs" / language / BREAK_PAGE, PROSE_EDIT)
        results["prose-edit rebuild"] = build(repo)
        append(repo / SAFE_EXAMPLE, CODE_EDIT)
        results["one safe-page example edited"] = build(repo)
        checkout = copy_repository(folder / "tests")
        build(checkout)  # its site up to date (untimed), as after nox -s docs
        pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m"]
        tests = [timed([*pytest, "not e2e"], checkout)[0] for _ in range(2)]
        e2e = timed([*pytest, "e2e"], checkout)[0]
        units += run_a_units(folder)

    unit = statistics.median(units)
    print(
        f"run-A unit (`minigpt train inplace=false`, 150 steps): {', '.join(f'{u:.1f}' for u in units)} s, "
        f"median {unit:.1f} s\n"
    )
    print(f"{'what':<32} {'seconds':>8} {'units':>6}   executed (once for both languages)")
    for name, (seconds, report) in results.items():
        executed = (
            f"{len(report['executed'])} pages, {report['cells_executed']} cells, {len(report['experiments'])} computed"
        )
        print(f"{name:<32} {seconds:8.1f} {seconds / unit:6.1f}   {executed}")
    print(f"{'source check (execbook check)':<32} {check:8.1f} {check / unit:6.1f}   nothing executed")
    print(f"{'tests (nox -s tests), cold':<32} {tests[0]:8.1f} {tests[0] / unit:6.1f}")
    print(f"{'tests (nox -s tests), warm':<32} {tests[1]:8.1f} {tests[1] / unit:6.1f}")
    print(f"{'end-to-end tests (nox -s e2e)':<32} {e2e:8.1f} {e2e / unit:6.1f}\n")
    for what, value, target in [
        ("cold build of both languages", results["cold build, both languages"][0] / unit, 8),
        ("rebuild after one safe-page example", results["one safe-page example edited"][0] / unit, 3),
        ("tests, warm", tests[1] / unit, 23),
        ("tests and end-to-end tests together", (tests[1] + e2e) / unit, 45),
    ]:
        print(f"{what:<40} {value:5.1f} units   target <= {target:<3} {'met' if value <= target else 'MISSED'}")


if __name__ == "__main__":
    main()
