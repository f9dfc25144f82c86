"""book.store: what the build's pages and claims share, each computed once per key."""

import os
import subprocess
import sys

import pytest

from book import store


def test_a_result_is_computed_once_then_read_back_even_in_another_process(tmp_path, monkeypatch):
    monkeypatch.setenv(store.ENV, str(tmp_path))
    monkeypatch.setattr(store, "_memory", {})
    calls = []
    compute = lambda: calls.append(1) or {"value": 42}  # noqa: E731
    assert store.memoized("experiment", "answer-abc", compute) == {"value": 42}
    monkeypatch.setattr(store, "_memory", {})  # as a fresh process (a page's kernel) would start
    assert store.memoized("experiment", "answer-abc", compute) == {"value": 42}
    assert calls == [1]
    assert [e["key"] for e in store.computed_since(0)] == ["answer-abc"]


def test_without_a_store_results_live_in_the_process_only(tmp_path, monkeypatch):
    monkeypatch.delenv(store.ENV, raising=False)
    monkeypatch.setattr(store, "_memory", {})
    assert store.memoized("experiment", "k", lambda: 1) == 1
    assert store.memoized("experiment", "k", lambda: 2) == 1
    assert store.computed_since(0, store=tmp_path) == []


def test_two_processes_that_need_one_experiment_compute_it_once(tmp_path):
    """Pages read in two processes (docs/build.py): the second waits for the first's result."""
    script = ("import time\nfrom book import store\n"
              "print(store.memoized('experiment', 'shared', lambda: (time.sleep(1), 'value')[1]))")
    env = dict(os.environ, BOOK_STORE=str(tmp_path))
    both = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
            for _ in range(2)]
    assert [process.communicate(timeout=60)[0].strip() for process in both] == ["value", "value"]
    assert [entry["key"] for entry in store.computed_since(0, tmp_path)] == ["shared"]


def test_a_promised_outcome_is_waited_for_not_computed_again(tmp_path, monkeypatch):
    """What a page of the other process promised is read once it is saved (book.store)."""
    import threading

    monkeypatch.setenv(store.ENV, str(tmp_path))
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        store.promise("case", ["k"])
        store._promise_path("case", "k").write_text(str(other.pid))  # as if the other kernel had promised it
        threading.Timer(0.5, lambda: store.save("case", "k", "saved by the other")).start()
        assert store.load("case", "k") == "saved by the other"
        assert not store._promise_path("case", "k").exists()
        store._promise_path("case", "gone").write_text(str(other.pid))
        other.kill()
        other.wait()
        with pytest.raises(KeyError):  # its promiser ended without saving it: not waited for
            store.load("case", "gone", wait_s=60)
    finally:
        other.kill()


def test_a_promise_is_withdrawn_by_its_own_process_only(tmp_path, monkeypatch):
    """A page served from MyST-NB's cache runs no kernel: its reader withdraws its promises
    (docs/_ext/casecells.py), not those another process made since."""
    monkeypatch.setenv(store.ENV, str(tmp_path))
    store.promise("case", ["mine", "taken over", "saved"])
    store._promise_path("case", "taken over").write_text("1")  # as if a page's kernel had promised it since
    store.save("case", "saved", "value")
    store.release("case", ["mine", "taken over", "saved"])
    assert not store._promise_path("case", "mine").exists()
    assert store._promise_path("case", "taken over").read_text() == "1"
    assert store.load("case", "saved") == "value"
