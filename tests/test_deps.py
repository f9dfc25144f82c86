"""What a page depends on is complete and no larger than it must be.

book.deps declares, per example, the files it depends on (its imports' packages, what the
manifest says it reads or runs); a page re-executes when one of them changes. Completeness is
proven by watching: tests/run_examples.py runs every example with an audit hook (its child
processes too) and lists every repository file it opened or ran; each must be declared.
"""

from pathlib import Path

import pytest

from book import cases, deps

REPO = Path(__file__).resolve().parents[1]
EXECUTED = {"breaks/25-inplace-autograd", "breaks/25-inplace-safe", "compatibility",
            "theory/02-autograd-engine", "theory/04-autograd-tape-walk-mini-gpt"}


@pytest.mark.parametrize("name", list(cases.manifest()))
def test_every_file_an_example_opens_is_declared(example_results, name):
    declared = {p.relative_to(REPO).as_posix() for p in deps.example_dependencies(name)}
    opened = set(example_results[name]["opened"])
    assert opened, "the audit saw nothing: it is not watching"
    assert opened <= declared, f"{name} read files it does not declare: {sorted(opened - declared)}"


def test_the_watch_sees_subprocesses(example_results):
    """The reproducer's own imports are few; `just` reading the justfile and python -m minigpt
    reading minigpt/cli.py happen in child processes."""
    opened = set(example_results["reproducer"]["opened"])
    assert {"justfile", "minigpt/cli.py", "minigpt/model.py"} <= opened


def page_fingerprints(repo_change=None):
    from book import pages

    found = {}
    for page in EXECUTED:
        names = [Path(c.metadata["load"]).stem for c in pages.notebook(REPO / "docs" / "en" / f"{page}.md").cells
                 if "load" in c.metadata]
        found[page] = deps.page_dependencies(names)
    return found


@pytest.fixture(scope="module")
def page_dependencies():
    return page_fingerprints()


@pytest.mark.parametrize("changed,pages", [
    ("examples/safe_masked_fill.py", {"breaks/25-inplace-safe", "compatibility"}),  # its claim
    ("examples/theory04_stale.py", {"theory/04-autograd-tape-walk-mini-gpt"}),
    ("examples/reproducer.py", {"breaks/25-inplace-autograd"}),
    ("justfile", {"breaks/25-inplace-autograd"}),
    ("records/torch-2.13.0.json", {"compatibility"}),
    ("tapegrad/engine.py", {"theory/02-autograd-engine"}),
    ("drift/claims.py", {"compatibility"}),
    ("minigpt/model.py", EXECUTED),
    ("book/kernel.py", EXECUTED),
    ("examples/cases.toml", EXECUTED),
    ("docs/en/breaks/25-inplace-safe.md", set()),
    ("README.md", set()),
])
def test_a_change_re_executes_exactly_the_pages_that_use_it(page_dependencies, changed, pages):
    assert {page for page, files in page_dependencies.items() if REPO / changed in files} == pages


def test_the_fingerprint_follows_contents_paths_and_torch(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    before = deps.fingerprint([a, b], torch_version="2.13.0", repo=tmp_path)
    assert deps.fingerprint([b, a], torch_version="2.13.0", repo=tmp_path) == before
    assert deps.fingerprint([a, b], torch_version="2.12.1", repo=tmp_path) != before
    a.write_text("x = 3\n")
    assert deps.fingerprint([a, b], torch_version="2.13.0", repo=tmp_path) != before
