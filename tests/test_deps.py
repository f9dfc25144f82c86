"""What a page depends on is complete and no larger than it must be.

execbook.deps declares, per example, the files it depends on (its imports' packages, what the
manifest says it reads or runs); a page re-executes when one of them changes. Completeness is
proven by watching: tests/run_examples.py runs every example with an audit hook (its child
processes too) and lists every repository file it opened or ran; each must be declared.
"""

from pathlib import Path

import pytest

from execbook import cases, deps, pages
from execbook.pages import executed

REPO = Path(__file__).resolve().parents[1]
EXECUTED = set(executed("en"))


@pytest.mark.parametrize("name", list(cases.manifest()))
def test_every_file_an_example_opens_is_declared(example_results, name):
    """What the example opens, its hidden checks and the judging around it included, is among what
    a page that loads it depends on (the example's files and the kernel's). The manifest is read
    whole, but a page depends on its examples' entries only (deps.example_entries)."""
    depends = deps.page_dependencies([name])  # the engine's own files too, installed apart in a copy's run
    declared = {p.relative_to(REPO).as_posix() for p in depends if p.is_relative_to(REPO)} | {"examples/cases.toml"}
    opened = set(example_results[name]["opened"])
    assert opened, "the audit saw nothing: it is not watching"
    assert opened <= declared, f"{name} read files it does not declare: {sorted(opened - declared)}"


@pytest.mark.parametrize("name", ["reproducer"])
def test_the_watch_sees_subprocesses(example_results, name):
    """The reproducer's own imports are few; `just` reading the justfile and python -m minigpt
    reading minigpt/cli.py happen in child processes."""
    opened = set(example_results[name]["opened"])
    assert {"justfile", "minigpt/cli.py", "minigpt/model.py"} <= opened


def loaded(page):
    return [
        c.metadata[pages.EXAMPLE]
        for c in pages.notebook(REPO / "docs" / "en" / f"{page}.md").cells
        if pages.EXAMPLE in c.metadata
    ]


@pytest.fixture(scope="module")
def page_dependencies():
    return {page: deps.page_dependencies(loaded(page)) for page in EXECUTED}


@pytest.mark.parametrize(
    "changed,pages_",
    [
        ("examples/safe_masked_fill.py", {"breaks/25-inplace-safe", "compatibility"}),  # its claim
        ("phase25/summary.py", {"breaks/25-inplace-safe"}),  # imported by that page's hidden checks only
        ("examples/theory04_stale.py", {"theory/04-autograd-tape-walk-mini-gpt"}),
        ("examples/reproducer.py", {"breaks/25-inplace-further"}),
        ("justfile", {"breaks/25-inplace-further"}),
        ("records/torch-2.13.0.json", {"compatibility"}),
        ("tapegrad/engine.py", {"theory/02-autograd-engine"}),
        ("phase25/claims.py", {"compatibility"}),
        ("minigpt/model.py", EXECUTED),
        ("execbook/src/execbook/kernel.py", EXECUTED),
        ("execbook/src/execbook/build.py", set()),  # the build's own code runs no cell
        ("execbook/src/execbook/sphinxext/downloads.py", set()),
        ("examples/cases.toml", set()),  # a page depends on its examples' entries only (next test)
        ("docs/en/breaks/25-inplace-safe.md", set()),
        ("README.md", set()),
    ],
)
def test_a_change_re_executes_exactly_the_pages_that_use_it(page_dependencies, changed, pages_):
    assert {page for page, files in page_dependencies.items() if REPO / changed in files} == pages_


def test_an_engine_installed_apart_fingerprints_its_own_kernel(monkeypatch, tmp_path):
    """The kernel's code counts in every page's fingerprint when the engine is installed outside the
    book too: its own file (execbook.kernel's), not the book's execbook/src/execbook/kernel.py."""
    installed = tmp_path / "site-packages" / "execbook" / "kernel.py"
    installed.parent.mkdir(parents=True)
    installed.write_text(deps.KERNEL.read_text())
    monkeypatch.setattr(deps, "KERNEL", installed)
    deps.kernel_dependencies.cache_clear()
    try:
        assert installed in deps.kernel_dependencies()
        before = deps.page_fingerprint(["theory04_stale"])
        installed.write_text(installed.read_text() + "\n# edited\n")
        assert deps.page_fingerprint(["theory04_stale"]) != before
    finally:
        deps.kernel_dependencies.cache_clear()


def test_editing_one_manifest_entry_re_executes_only_the_pages_that_load_its_example(monkeypatch):
    before = {page: deps.page_fingerprint(loaded(page)) for page in EXECUTED}
    entry = cases.entry_text
    monkeypatch.setattr(cases, "entry_text", lambda name: entry(name) + (" edited" if name == "theory04_stale" else ""))
    after = {page: deps.page_fingerprint(loaded(page)) for page in EXECUTED}
    assert {page for page in EXECUTED if before[page] != after[page]} == {"theory/04-autograd-tape-walk-mini-gpt"}


def test_minigpt_s_experiments_are_kept_under_the_fingerprint_of_every_module_they_run(monkeypatch, tmp_path):
    """minigpt fingerprints the modules its experiments run (it cannot import the engine): every module
    of the engine's dependency closure is one of its SOURCES, and a change to one changes the key."""
    from minigpt import experiments

    package = REPO / "minigpt"
    read = deps.closure({Path(experiments.__file__)})
    assert {p.name for p in read} == set(experiments.SOURCES), "minigpt.experiments.SOURCES: name what it runs"
    assert {p.parent for p in read} == {package}, "an experiment runs code outside minigpt/: fingerprint it too"
    copy = tmp_path / "minigpt"
    copy.mkdir()
    for path in package.glob("*.py"):
        (copy / path.name).write_bytes(path.read_bytes())
    monkeypatch.setattr(experiments, "__file__", str(copy / "experiments.py"))
    experiments.code.cache_clear()
    before = experiments.code()
    (copy / "model.py").write_text((copy / "model.py").read_text() + "\n# edited\n")
    experiments.code.cache_clear()
    assert experiments.code() != before
    experiments.code.cache_clear()


def test_an_example_depends_on_the_entries_it_reads():
    assert deps.example_entries("theory04_stale") == ["theory04_stale"]
    summary = [case.name for case in cases.cases_with("verdict")]
    assert deps.example_entries("safe_summary") == ["safe_summary", *summary]
    assert {"fix", "errata", *summary} <= set(deps.example_entries("compat_tables"))


def test_the_fingerprint_follows_contents_paths_and_extras(tmp_path):
    from execbook.store import fingerprint

    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    before = fingerprint([a, b], tmp_path, "torch 2.13.0")
    assert fingerprint([b, a], tmp_path, "torch 2.13.0") == before
    assert fingerprint([a, b], tmp_path, "torch 2.12.1") != before
    a.rename(tmp_path / "c.py")
    assert fingerprint([tmp_path / "c.py", b], tmp_path, "torch 2.13.0") != before, "paths count"
    (tmp_path / "c.py").write_text("x = 3\n")
    assert fingerprint([tmp_path / "c.py", b], tmp_path, "torch 2.13.0") != before


def test_a_folder_an_example_reads_is_what_git_tracks_there():
    """reads = ["inplace_doctor"]: not its *.egg-info/ (every `nox -s docs` rewrites it) nor the
    build/ copies `pip install ./inplace_doctor` leaves, or the diagnose page re-executes."""
    read = deps._read_paths("inplace_doctor")
    assert REPO / "inplace_doctor" / "src" / "inplace_doctor" / "diagnoser.py" in read
    assert not [p for p in read if {"build", "__pycache__"} & set(p.parts) or p.parent.name.endswith(".egg-info")]
