"""No stale outputs, and no needless execution. Each executed page's setup cell names the
fingerprint of the files it depends on (book.deps, proven complete by tests/test_deps.py): after
a change to one of them that page executes again, and only that page; after a prose-only edit
nothing executes; each experiment is computed once (book.store).

The end-to-end test goes on from the cold build (`cold_build`, tests/conftest.py): it copies it,
with its build state, to another directory and builds the English book there again and again,
reading what each build executed (docs/_build/execution/en.json) and what it printed
(docs/_ext/progress.py: a line when a page starts executing, one when it ends).
"""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, docs_build
from test_build_output import STARTED  # the line a page that starts executing prints
from book import pages as pages_module

BREAK_PAGE = Path("docs/en/breaks/25-inplace-autograd.md")
PROSE_EDIT = "\nA sentence added by the freshness test: prose only.\n"
CODE_EDIT = "\n# a comment added by the freshness test: the code changed, the behaviour did not\n"


def append(path, text):
    with open(path, "a", encoding="utf-8") as file:
        file.write(text)


def executed_pages(repo):
    """Docnames of the English pages that execute code."""
    tree = repo / "docs" / "en"
    return [p.relative_to(tree).with_suffix("").as_posix() for p in docs_build.executed_pages("en", repo / "docs")]


def build_en(repo):
    """The English build's execution report, checked against what the build printed."""
    done = subprocess.run([sys.executable, str(repo / "docs" / "build.py"), "en"], cwd=repo,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = docs_build.execution_report("en", repo / "docs")
    assert sorted(page for _, page in STARTED.findall(done.stdout)) == sorted(report["executed"]), done.stdout
    return dict(report, printed=done.stdout)


@pytest.fixture(scope="module")
def built_copy(cold_build, tmp_path_factory):
    """The cold build, moved: a copy of it, build state and all, in another directory."""
    repo, _ = cold_build
    return docs_build.copy_repository(tmp_path_factory.mktemp("moved") / "repo", repository=repo)


def test_only_code_changes_execute_pages(built_copy):
    repo = built_copy
    pages = executed_pages(repo)
    assert len(pages) >= 5

    # new paths, same code: Sphinx reads every page again, the cache serves them all
    moved = build_en(repo)
    assert moved["executed"] == [] and moved["cells_executed"] == 0 and set(pages) <= set(moved["read"])
    assert [line.split(" built in ")[0] for line in moved["printed"].splitlines()] == ["docs: en"], \
        "a build that executes nothing prints its summary line and nothing else"

    append(repo / BREAK_PAGE, PROSE_EDIT)
    prose = build_en(repo)
    assert "breaks/25-inplace-autograd" in prose["read"]
    assert prose["executed"] == [] and prose["cells_executed"] == 0
    assert "A sentence added by the freshness test" in (
        repo / "docs/_build/html/en/breaks/25-inplace-autograd.html").read_text(encoding="utf-8")

    append(repo / "examples" / "safe_masked_fill.py", CODE_EDIT)
    one = build_en(repo)
    # the page that loads it, and the compatibility page, whose claims read its outcome
    assert sorted(one["executed"]) == ["breaks/25-inplace-safe", "compatibility"]
    kinds = [e.split(":")[0] for e in one["experiments"]]
    assert "experiment" not in kinds, "the mini-GPT did not change: its experiments are reused"
    loaded = sum("load" in c.metadata for page in one["executed"]
                 for c in pages_module.notebook(REPO / "docs" / "en" / f"{page}.md").cells)
    assert kinds.count("case") == loaded, "each loaded example ran once, in its own cell"
