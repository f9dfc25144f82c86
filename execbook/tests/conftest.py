"""The engine's own tests: each writes the tiny book it needs in a temporary folder (test_engine_reuse.py's
write_book) and runs the engine there; none reads the lesson's pages or examples.

`cd execbook && pytest tests` runs them alone, with the engine installed; the repository's `pytest`
runs them beside the lesson's tests (pyproject.toml's testpaths). This folder has no __init__.py,
as tests/ has none: its modules import by their names, which differ from every one of tests/.
"""

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
DISTRIBUTION = HERE.parent  # execbook/, the engine's distribution


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: an end-to-end test (whole builds, kills, venvs, waiting kernels)")


@pytest.fixture(scope="session")
def installed_engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the engine as `pip install ./execbook` (not editable) puts it in site-packages,
    built from a copy of its distribution: its package alone, none of this checkout's files."""
    source = tmp_path_factory.mktemp("engine-source") / "execbook"
    shutil.copytree(DISTRIBUTION, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "tests"))
    target = tmp_path_factory.mktemp("site-packages")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
        + ["--target", str(target), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return target


@pytest.fixture
def in_tiny_book(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """test_engine_reuse.py's tiny book as the book this process and those it starts read (--root's
    variable), whichever book holds the folder the tests run from. A test that changes a setting
    does it with monkeypatch.setitem(vars(config), ...): setattr's undo would keep the tiny book's
    value as the module's own after the test."""
    from test_engine_reuse import write_book

    from execbook import cases, config, deps
    from execbook.sphinxext import links, words

    root = tmp_path_factory.mktemp("tiny-root")
    write_book(root, engine=False)
    monkeypatch.setenv(config.ROOT_ENV, str(root))
    # what the engine keeps of the book it read: read again from the tiny book, then from the one before
    read = (config.settings, config._derived, config.hook, cases.manifest, cases.entry_text, words.words)
    read += (links.book_folder, deps.module_file, deps.example_dependencies, deps.kernel_dependencies)
    for cached in read:
        cached.cache_clear()
    yield root
    for cached in read:
        cached.cache_clear()


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that go on from test_engine_reuse.py's tiny build run in one pytest-xdist worker, so
    that it is built once (nox -s e2e spreads over two)."""
    for item in items:
        if "tiny" in getattr(item, "fixturenames", ()) and item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.xdist_group("tiny-book"))
