"""`python -m execbook sizes` counts every line of Python once: each package, the rest, the tests apart."""

import subprocess
import sys

from execbook import config, sizes


def test_every_python_line_is_counted_once():
    found = sizes.sizes()
    assert set(found) == {*config.PACKAGES, "other", "tests"}
    every = sizes.python_files(config.REPO)
    assert sum(found.values()) == sizes.lines(every)
    assert found["execbook"] == sizes.lines(sizes.python_files(config.REPO / "execbook"))


def test_the_command_prints_each_part_and_marks_what_is_over_its_target():
    done = subprocess.run([sys.executable, "-m", "execbook", "sizes"], cwd=config.REPO, capture_output=True, text=True)
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[1:] if line and not line.startswith("(")}
    assert set(rows) == {*config.PACKAGES, "other", "total", "tests"}
    over = [part for part, row in rows.items() if row.endswith("OVER")]
    assert done.returncode == (1 if over else 0)
    for part, target in config.SIZE_TARGETS.items():
        assert f"<= {target:,}" in rows[part]
