"""Every file in examples/ runs standalone, exactly as the break page executes it.

A file exits 0, unless its first lines declare the exception it must end with:

    # expect-raise: RuntimeError: modified by an inplace operation

(type, colon, a fragment of the message); then it must fail with exactly that exception type
and a message containing that fragment. A declared file that stops raising fails the test.
The pages load the same files: each language loads the same cells in the same order, and a
cell whose file declares expect-raise is tagged raises-exception and followed by its guard.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((REPO / "examples").glob("*.py"))
PAGES = {lang: REPO / "docs" / lang / "breaks" / "25-inplace-autograd.md" for lang in ("es", "en")}
DECLARATION = re.compile(r"^# expect-raise: (?P<type>[\w.]+): (?P<fragment>.+?)\s*$")
HEADER_LINES = 3
TIMEOUT_S = 600


def expected_raise(path):
    """(exception type, message fragment) declared on the file's first lines, or None."""
    for line in path.read_text(encoding="utf-8").splitlines()[:HEADER_LINES]:
        found = DECLARATION.match(line)
        if found:
            return found["type"], found["fragment"]
    return None


def final_exception(stderr):
    """(type, message) of the exception a Python process died of, from its stderr, or None."""
    if "Traceback (most recent call last):" not in stderr:
        return None
    last = stderr.rsplit("Traceback (most recent call last):", 1)[1].splitlines()
    for i, line in enumerate(last[1:], 1):
        if line and not line.startswith(" "):  # the first unindented line after the frames
            kind, _, message = line.partition(":")
            return kind, "\n".join([message.strip(), *last[i + 1:]])
    return None


def run_example(path):
    """Run path as the book's kernel would: repository on PYTHONPATH, this venv's tools on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "docs" / "kernel"), str(REPO)])  # as conf_shared.py
    env.setdefault("MPLBACKEND", "Agg")
    return subprocess.run([sys.executable, str(path)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT_S)


def check(path, done):
    """A list of problems with one finished run of path (empty when it behaved as declared)."""
    declared = expected_raise(path)
    output = f"\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
    if declared is None:
        return [] if done.returncode == 0 else [f"{path.name} exited {done.returncode}{output}"]
    kind, fragment = declared
    if done.returncode == 0:
        return [f"{path.name} declares expect-raise {kind} but exited 0 (it no longer raises){output}"]
    raised = final_exception(done.stderr)
    if raised is None:
        return [f"{path.name} exited {done.returncode} without a Python traceback{output}"]
    got_kind, message = raised
    problems = []
    if got_kind != kind and not got_kind.endswith("." + kind):  # torch.x.Error may print qualified
        problems.append(f"{path.name} raised {got_kind}, declared {kind}{output}")
    if fragment not in message:
        problems.append(f"{path.name}: message lacks {fragment!r}: {message[:500]}")
    return problems


def test_there_are_examples():
    assert EXAMPLES, "examples/ is empty"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_as_declared(path):
    problems = check(path, run_example(path))
    assert not problems, "\n".join(problems)


# --- the checker itself: it must catch a file that stops raising, or raises something else


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


DECLARED = "# expect-raise: RuntimeError: modified by an inplace operation\n"


@pytest.mark.parametrize("body,ok", [
    ("raise RuntimeError('x was modified by an inplace operation: ...')\n", True),
    ("print('fixed: nothing raises any more')\n", False),
    ("raise ValueError('modified by an inplace operation')\n", False),
    ("raise RuntimeError('some other failure')\n", False),
    ("import sys\nsys.exit(3)\n", False),
])
def test_checker_on_declared_files(tmp_path, body, ok):
    path = _write(tmp_path, "case.py", DECLARED + body)
    assert (check(path, run_example(path)) == []) is ok


@pytest.mark.parametrize("body,ok", [("print('fine')\n", True), ("raise RuntimeError('boom')\n", False)])
def test_checker_on_plain_files(tmp_path, body, ok):
    path = _write(tmp_path, "case.py", body)
    assert (check(path, run_example(path)) == []) is ok


def test_final_exception_takes_the_last_of_a_chain():
    stderr = ("Traceback (most recent call last):\n  File \"a.py\", line 1\nValueError: first\n\n"
              "During handling of the above exception, another exception occurred:\n\n"
              "Traceback (most recent call last):\n  File \"a.py\", line 3\n    raise\n"
              "RuntimeError: second, modified by an inplace operation\n")
    assert final_exception(stderr) == ("RuntimeError", "second, modified by an inplace operation")


# --- the pages load these files


CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(?P<options>(?::[^\n]*\n)*)(?P<body>.*?)^```\s*$", re.M | re.S)
GUARD = re.compile(r'^expect_raised\((?P<type>\w+), "(?P<fragment>[^"]+)"\)$', re.M)


def page_cells(path):
    """[(options text, body text)] of every code cell of a page, in order."""
    return [(m["options"], m["body"]) for m in CELL.finditer(path.read_text(encoding="utf-8"))]


def loaded(options):
    found = re.search(r"^:load:\s*(\S+)\s*$", options, re.M)
    return found and found.group(1)


@pytest.fixture(scope="module")
def cells():
    missing = [str(p) for p in PAGES.values() if not p.is_file()]
    if missing:
        pytest.skip(f"page not written yet: {missing}")
    return {lang: page_cells(path) for lang, path in PAGES.items()}


def test_both_languages_execute_the_same_cells(cells):
    assert cells["es"] == cells["en"]


def test_every_load_is_an_example_file(cells):
    page = PAGES["en"].parent
    loads = [loaded(options) for options, _ in cells["en"] if loaded(options)]
    assert loads
    examples = {p.resolve() for p in EXAMPLES}
    missing = [target for target in loads if (page / target).resolve() not in examples]
    assert not missing, f"loaded but not in examples/: {missing}"


def test_raising_cells_are_tagged_and_guarded(cells):
    page = PAGES["en"].parent
    sequence = cells["en"]
    for i, (options, body) in enumerate(sequence):
        target = loaded(options)
        declared = expected_raise((page / target).resolve()) if target else None
        tagged = "raises-exception" in options
        assert bool(declared) == tagged, f"cell {i} ({target}): tag raises-exception iff expect-raise"
        if declared:
            guard_options, guard_body = sequence[i + 1]
            assert "remove-cell" in guard_options, f"the guard after {target} must be hidden"
            guard = GUARD.search(guard_body)
            assert guard and (guard["type"], guard["fragment"]) == declared, (
                f"the guard after {target} must be expect_raised{declared}")
