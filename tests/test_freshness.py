"""No stale outputs, and no needless execution. Each executed page's setup cell names the
fingerprint of what it depends on (execbook.deps, proven complete by tests/test_deps.py): after a
change to one of those files, or to the manifest entry of one of its examples, that page executes
again, and only that page; after a prose-only edit nothing executes; each experiment is computed
once (execbook.store); and a build never publishes a file it did not write.

The end-to-end test goes on from the cold build (`cold_build`, tests/conftest.py): it copies it,
with its build state, to another directory and builds there again and again, reading what each
build executed (docs/_build/execution.json) and what it printed (execbook.build: a line when a page
starts executing, one when it ends).
"""

import pytest
from conftest import build, copy_repository, execution_report
from test_build_output import STARTED  # the line a page that starts executing prints

from execbook import config, pages

BREAK_PAGE = "breaks/25-inplace-autograd"
PROSE_EDIT = "\nA sentence added by the freshness test: prose only.\n"
CODE_EDIT = "\n# a comment added by the freshness test: the code changed, the behaviour did not\n"


def append(path, text):
    with open(path, "a", encoding="utf-8") as file:
        file.write(text)


def rebuild(repo):
    """The build's execution report, checked against what the build printed."""
    done = build(repo)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = execution_report(repo)
    assert sorted(STARTED.findall(done.stdout)) == sorted(report["executed"]), done.stdout
    return dict(report, printed=done.stdout)


@pytest.fixture(scope="module")
def built_copy(cold_build, tmp_path_factory):
    """The cold build, moved: a copy of it, build state and all, in another directory."""
    repo, _ = cold_build
    return copy_repository(tmp_path_factory.mktemp("moved") / "repo", repository=repo)


def test_only_code_changes_execute_pages_and_only_fresh_files_are_published(built_copy):
    repo = built_copy
    stray = repo / "docs/_build/html/en/_images/left-over-from-an-old-build.png"
    stray.write_bytes(b"not produced by this build")

    # new paths, same code: the execution cache serves every page
    moved = rebuild(repo)
    assert moved["executed"] == [] and moved["cells_executed"] == 0 and moved["experiments"] == []
    assert [line.split(" built in ")[0].split(" page(s)")[0] for line in moved["printed"].splitlines()] == [
        "docs: es",
        "docs: en",
        "docs: 0",
        "docs: no glued value changed (docs/_build/glue-changes.txt)",
    ], "a build that executes nothing prints its summary lines only"
    assert not stray.exists(), "a build publishes only the files it wrote"

    for language in ("es", "en"):
        append(repo / "docs" / language / f"{BREAK_PAGE}.md", PROSE_EDIT)
    prose = rebuild(repo)
    assert prose["executed"] == [] and prose["cells_executed"] == 0
    assert "A sentence added by the freshness test" in (
        repo / "docs/_build/html/en/breaks/25-inplace-autograd.html"
    ).read_text(encoding="utf-8")

    append(repo / "examples" / "safe_masked_fill.py", CODE_EDIT)
    one = rebuild(repo)
    # the page that loads it, and the compatibility page, whose claims read its outcome
    assert sorted(one["executed"]) == ["breaks/25-inplace-safe", "compatibility"]
    kinds = [e.split(":")[0] for e in one["experiments"]]
    assert "experiment" not in kinds and "training" not in kinds, "the mini-GPT did not change: reused"
    loaded = sum(
        pages.EXAMPLE in c.metadata
        for page in one["executed"]
        for c in pages.notebook(config.DOCS / "en" / f"{page}.md").cells
    )  # this checkout's twin
    assert kinds.count("case") == loaded, "each loaded example ran once, in its own cell"

    manifest = repo / "examples" / "cases.toml"
    manifest.write_text(
        manifest.read_text(encoding="utf-8").replace(
            '[theory04_stale]\nexpect = "completes"', '[theory04_stale]\nexpect = "completes"\nreads = []'
        ),
        encoding="utf-8",
    )
    entry = rebuild(repo)
    assert entry["executed"] == ["theory/04-autograd-tape-walk-mini-gpt"], "one entry, one page"
