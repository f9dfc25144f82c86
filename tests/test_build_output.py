"""A build that says what it does (execbook.build): one line when a page starts executing, one when
it ends (seconds, cells); nothing for a page whose execution is cached; no "[IPKernelApp] WARNING |
Kernel is running over TCP without encryption" (kernels run over IPC).

Read from the cold build (`cold_build`, tests/conftest.py: python -m execbook build, no stdin,
offline): it executes every executed page once, for both languages. tests/test_freshness.py
checks the lines of the later builds against what each executed.
"""

import re

from conftest import execution_report

STARTED = re.compile(r"^docs: executing (\S+) \.\.\.$", re.M)
ENDED = re.compile(r"^docs: (\S+) executed in \d+\.\d s \((\d+) cells\)$", re.M)


def test_a_cold_build_says_which_pages_it_executes_and_the_kernel_does_not_warn(cold_build):
    repo, done = cold_build
    report = execution_report(repo)
    started = {page: found.start() for found in STARTED.finditer(done.stdout) for page in [found.group(1)]}
    ended = {
        page: (found.start(), int(cells)) for found in ENDED.finditer(done.stdout) for page, cells in [found.groups()]
    }
    assert sorted(started) == sorted(report["executed"]) and len(started) >= 5, done.stdout
    assert sum(cells for _, cells in ended.values()) == report["cells_executed"]
    assert ended.keys() == started.keys() and all(started[p] < ended[p][0] for p in started), done.stdout
    assert "without encryption" not in done.stdout + done.stderr
    assert re.search(r"^docs: es built in .*\n^docs: en built in ", done.stdout, re.M), "Spanish, then English"
