"""execbook.store: what the build's pages and claims share, each computed once per key."""

import os
import subprocess
import sys

import pytest

from execbook import store


def test_a_result_is_computed_once_then_read_back_even_in_another_process(tmp_path, monkeypatch):
    monkeypatch.setenv(store.STORE_ENV, str(tmp_path))
    monkeypatch.setattr(store, "_memory", {})
    calls = []
    compute = lambda: calls.append(1) or {"value": 42}  # noqa: E731
    assert store.memoized("experiment", "answer-abc", compute) == {"value": 42}
    monkeypatch.setattr(store, "_memory", {})  # as a fresh process (a page's kernel) would start
    assert store.memoized("experiment", "answer-abc", compute) == {"value": 42}
    assert calls == [1]
    script = "from execbook import store; print(store.load('experiment', 'answer-abc'))"
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=dict(os.environ, BOOK_STORE=str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "{'value': 42}", done.stderr
    assert [e["key"] for e in store.computed_since(0)] == ["answer-abc"]


def test_without_a_store_results_live_in_the_process_only(tmp_path, monkeypatch):
    monkeypatch.delenv(store.STORE_ENV, raising=False)
    monkeypatch.setattr(store, "_memory", {})
    assert store.memoized("experiment", "k", lambda: 1) == 1
    assert store.memoized("experiment", "k", lambda: 2) == 1
    assert store.computed_since(0, store=tmp_path) == []


def test_a_value_computed_twice_is_logged_twice(tmp_path, monkeypatch):
    """What the build's check reads: two processes that each computed one key (neither found it)."""
    monkeypatch.setenv(store.STORE_ENV, str(tmp_path))
    for _ in range(2):
        monkeypatch.setattr(store, "_memory", {})
        store.save("experiment", "twice", 1)
    assert [e["key"] for e in store.computed_since(0)] == ["twice", "twice"]


@pytest.mark.parametrize("checkout", [True, False], ids=["git checkout", "copy outside git"])
def test_the_book_s_files_are_what_git_tracks_or_would(tmp_path, checkout):
    """What `pip install ./pkg` leaves (pkg/build/lib/, *.egg-info/) is neither counted nor
    fingerprinted: in a checkout, git's list; in a copy, what its .gitignore leaves."""
    (tmp_path / ".gitignore").write_text("build/\n*.egg-info/\n__pycache__/\n", encoding="utf-8")
    own = [tmp_path / "pkg" / "mod.py", tmp_path / "pkg" / "new.py", tmp_path / ".gitignore"]
    left = [tmp_path / "pkg" / "build" / "lib" / "copy.py", tmp_path / "pkg" / "pkg.egg-info" / "PKG-INFO"]
    for path in [*own[:2], *left]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n", encoding="utf-8")
    if checkout:
        subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
        subprocess.run(["git", "add", "pkg/mod.py"], cwd=tmp_path, check=True)  # new.py: untracked, not ignored
    store.project_files.cache_clear()
    assert store.project_files(tmp_path) == frozenset(own)
