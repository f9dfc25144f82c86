"""`python tests/sizes.py` counts every line of Python once: each package, the rest, the tests and
examples/ (the book's content) apart; no part may pass its target in pyproject.toml's [tool.phase25.sizes]."""

import subprocess
import sys
from pathlib import Path

import sizes

from execbook import config


def test_every_python_line_is_counted_once():
    found = sizes.sizes()
    assert set(found) == {*config.PACKAGES, "other", "tests", "examples"}
    every = sizes.python_files(config.REPO)
    assert sum(found.values()) == sizes.lines(every)
    assert found["execbook"] == sizes.lines(sizes.python_files(config.PACKAGE_DIRS["execbook"]))
    engine_docs = config.REPO / "execbook" / "docs" / "examples"  # a book's of its own count as examples too
    assert found["examples"] == sizes.lines([*sizes.python_files(config.EXAMPLES), *sizes.python_files(engine_docs)])


def test_the_total_is_the_code_so_a_new_page_never_passes_it():
    found, rows = sizes.sizes(), {part: n for part, n, _ in sizes.rows()}
    assert rows["total"] == sum(found[part] for part in (*config.PACKAGES, "other"))
    assert rows["examples"] == found["examples"] > 0


def test_the_command_prints_each_part_and_marks_what_is_over_its_target():
    script = Path(sizes.__file__).relative_to(config.REPO)
    done = subprocess.run([sys.executable, str(script)], cwd=config.REPO, capture_output=True, text=True)
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[1:] if line and not line.startswith("(")}
    assert set(rows) == {*config.PACKAGES, "other", "total", "tests", "examples"}, done.stderr
    over = [part for part, row in rows.items() if row.endswith("OVER")]
    assert done.returncode == (1 if over else 0)
    for part, target in sizes.targets().items():
        assert f"<= {target:,}" in rows[part]


def test_no_part_passes_its_target_in_tool_phase25_sizes():
    assert sizes.targets(), "pyproject.toml's [tool.phase25.sizes] sets no target"
    assert sizes.over() == [], "over [tool.phase25.sizes] (pyproject.toml): " + "; ".join(sizes.over())


def test_a_part_over_its_target_is_named_with_its_lines_and_target():
    lines = dict((part, n) for part, n, _ in sizes.rows())["execbook"]
    assert sizes.over({"execbook": 1, "total": 10**9}) == [f"execbook: {lines:,} lines, over its target of 1"]
