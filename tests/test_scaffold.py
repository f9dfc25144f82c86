"""`nox -s new-page -- <slug>` (python -m execbook new-page): a new page in both languages, with one
executed example that raises, its manifest entry and both tables of contents. The page builds and
passes the tests as written (end-to-end, in a copy of the cold build); bad names are refused with
one line, and nothing is written."""

import os
import re
import subprocess
import sys

import pytest
from conftest import build, copy_repository, execution_report

from execbook import config

SLUG = "breaks/26-scaffolded"
EXAMPLE = "breaks_26_scaffolded"  # examples/<EXAMPLE>.py, the new page's


def new_page(repo, *arguments):
    # no bytecode: Python's own caches (__pycache__ folders in the copy) are not what the command writes
    env = dict(os.environ, PYTHONPATH=str(repo), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(
        [sys.executable, "-m", "execbook", "new-page", *arguments],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    "slug,problem",
    [
        ("Breaks/Bad Name", "is not a page name"),
        ("breaks/25-inplace-safe", "docs/es/breaks/25-inplace-safe.md exists already"),
        ("index", "exists already"),
    ],
)
def test_a_bad_or_taken_name_is_refused_in_one_line_and_nothing_is_written(tmp_path, snapshot, slug, problem):
    repo = copy_repository(tmp_path / "repo", keep_build=False)
    before = snapshot(repo)
    done = new_page(repo, slug)
    assert done.returncode == 2 and problem in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert snapshot(repo) == before


def test_the_new_page_teaches_and_passes_the_check_as_written(tmp_path):
    """The worked template: the book's label convention, one glued number (glued and asserted by the
    example's hidden checks), one glossary term, one link, where it sits in the tables of contents
    and what to do next; python -m execbook check finds nothing wrong with it."""
    repo = copy_repository(tmp_path / "repo", keep_build=False)
    done = new_page(repo, SLUG)
    assert done.returncode == 0, done.stderr
    assert "Its label: phase-26-scaffolded" in done.stdout and "it comes after " in done.stdout
    assert "python -m execbook check" in done.stdout
    name = SLUG.replace("/", "_").replace("-", "_")
    example = (repo / "examples" / f"{name}.py").read_text("utf-8")
    assert f'glue_number("{name}_version"' in example and "\nassert " in example
    for language in config.LANGUAGES:
        page = (repo / "docs" / language / f"{SLUG}.md").read_text("utf-8")
        assert page.count("(phase-26-scaffolded)=") == 1
        assert f"{{glue:text}}`{name}_version_{language}`" in page
        assert "{term}`" in page and "{ref}`" in page and "% What to do next" in page
    env = dict(os.environ, PYTHONPATH=str(repo))
    checked = subprocess.run(
        [sys.executable, "-m", "execbook", "check"], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.fixture(scope="module")
def scaffolded(cold_build, tmp_path_factory):
    repo, _ = cold_build
    repo = copy_repository(tmp_path_factory.mktemp("scaffolded") / "repo", repository=repo)
    done = new_page(repo, SLUG)
    assert done.returncode == 0, done.stderr
    return repo, done, build(repo)


def test_the_new_page_builds_in_both_languages_executing_only_itself(scaffolded):
    repo, _, done = scaffolded
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert execution_report(repo)["executed"] == [SLUG]
    for language in config.LANGUAGES:
        page = (repo / "docs" / "_build" / "html" / language / f"{SLUG}.html").read_text(encoding="utf-8")
        assert "modified by an inplace operation" in page, "its example raises, and the page shows the error"
        index = (repo / "docs" / "_build" / "html" / language / "index.html").read_text(encoding="utf-8")
        assert f"{SLUG}.html" in index, "the page is in the table of contents"


def test_the_new_page_passes_the_tests_as_written(scaffolded):
    repo, _, _ = scaffolded
    env = dict(os.environ, PYTHONPATH=str(repo))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-v",
            "-p",
            "no:cacheprovider",
            "-m",
            "not e2e",
            "-n",
            "0",  # a few seconds of tests: one process, not pytest-xdist's workers that each import torch
            "tests/test_examples.py",
            "tests/test_deps.py",
            "tests/test_glossary.py",
            # of the tests that read what an example did, the new one's: it alone runs (conftest)
            "-k",
            f"{EXAMPLE} or not reads_example_results",
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    passed = rf"says\[{EXAMPLE}\] PASSED|PASSED \S+says\[{EXAMPLE}\]"  # in one process, or over xdist's workers
    assert re.search(passed, done.stdout), "the new example's own tests ran"
