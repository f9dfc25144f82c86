"""No stale outputs. The execution cache is keyed on everything a page's outputs depend on
(docs/conf_shared.code_fingerprint): after a change to minigpt/, examples/, drift/, records/ or
the installed torch the pages execute again; after a prose-only edit nothing executes.

The end-to-end test builds the English book in a scratch copy of the repository, starting from
this checkout's build state, and reads what each build executed (docs/_build/execution/en.json).
"""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
sys.path.insert(0, str(DOCS))
import build as docs_build  # noqa: E402
from conf_shared import code_fingerprint  # noqa: E402

BREAK_PAGE = Path("docs/en/breaks/25-inplace-autograd.md")
PROSE_EDIT = "\nA sentence added by the freshness test: prose only.\n"
CODE_EDIT = "\n# a comment added by the freshness test: the code changed, the behaviour did not\n"


def append(path, text):
    with open(path, "a", encoding="utf-8") as file:
        file.write(text)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return docs_build.copy_repository(tmp_path_factory.mktemp("fingerprint") / "repo", keep_build=False)


@pytest.mark.parametrize("edited,changes", [
    ("minigpt/model.py", True), ("examples/fix.py", True), ("drift/claims.py", True),
    ("records/torch-2.13.0.json", True), ("docs/kernel/book.py", True), ("justfile", True),
    (str(BREAK_PAGE), False), ("docs/es/index.md", False), ("README.md", False),
])
def test_fingerprint_follows_code_not_prose(scratch, edited, changes):
    before = code_fingerprint(scratch)
    path = scratch / edited
    original = path.read_bytes()
    try:
        append(path, CODE_EDIT if path.suffix == ".py" else "\n")
        assert (code_fingerprint(scratch) != before) is changes
    finally:
        path.write_bytes(original)
    assert code_fingerprint(scratch) == before


def test_fingerprint_follows_the_installed_torch(scratch):
    assert code_fingerprint(scratch, torch_version="2.12.1") != code_fingerprint(scratch, torch_version="2.13.0")
    assert code_fingerprint(scratch, torch_version="2.13.0") == code_fingerprint(scratch, torch_version="2.13.0")


def executed_pages(repo):
    """Docnames of the English pages that execute code."""
    tree = repo / "docs" / "en"
    return [p.relative_to(tree).with_suffix("").as_posix() for p in docs_build.executed_pages("en", repo / "docs")]


def build_en(repo):
    done = subprocess.run([sys.executable, str(repo / "docs" / "build.py"), "en"], cwd=repo,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return docs_build.execution_report("en", repo / "docs")


@pytest.fixture(scope="module")
def built_copy(tmp_path_factory):
    """A scratch copy holding this checkout's English build (built first, incrementally)."""
    build_en(REPO)
    return docs_build.copy_repository(tmp_path_factory.mktemp("stale") / "repo")


def test_only_code_changes_execute_pages(built_copy):
    repo = built_copy
    pages = executed_pages(repo)
    assert len(pages) >= 5

    moved = build_en(repo)  # new paths, same code: Sphinx reads again, the cache serves every page
    assert moved["executed"] == [] and set(pages) <= set(moved["read"])

    unchanged = build_en(repo)
    assert unchanged["executed"] == [] and unchanged["cells_executed"] == 0

    append(repo / BREAK_PAGE, PROSE_EDIT)
    prose = build_en(repo)
    assert "breaks/25-inplace-autograd" in prose["read"]
    assert prose["executed"] == [] and prose["cells_executed"] == 0
    assert "A sentence added by the freshness test" in (
        repo / "docs/_build/html/en/breaks/25-inplace-autograd.html").read_text(encoding="utf-8")

    append(repo / "minigpt" / "model.py", CODE_EDIT)
    code = build_en(repo)
    assert sorted(code["executed"]) == pages and code["cells_executed"] > 0
