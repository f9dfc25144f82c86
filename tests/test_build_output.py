"""A build that says what it does (docs/_ext/progress.py): one line when a page starts executing,
one when it ends (seconds, cells); nothing for a page served from the execution cache; and no
"[IPKernelApp] WARNING | Kernel is running over TCP without encryption" (kernels run over IPC).

Read from the cold build (`cold_build`, tests/conftest.py: docs/build.py, no stdin, offline): the
Spanish build executes every executed page, the English one takes them all from the cache.
tests/test_freshness.py checks the lines of the later builds against what each executed.
"""

import re

from conftest import docs_build

STARTED = re.compile(r"^docs: (\w+): executing (\S+) \.\.\.$", re.M)
ENDED = re.compile(r"^docs: (\w+): (\S+) executed in \d+\.\d s \((\d+) cells\)$", re.M)


def test_a_cold_build_says_which_pages_it_executes_and_the_kernel_does_not_warn(cold_build):
    repo, done = cold_build
    started = {(language, page): found.start() for found in STARTED.finditer(done.stdout)
               for language, page in [found.groups()]}
    ended = {(language, page): (found.start(), int(cells)) for found in ENDED.finditer(done.stdout)
             for language, page, cells in [found.groups()]}
    for language in docs_build.LANGUAGES:
        report = docs_build.execution_report(language, repo / "docs")
        mine = sorted(page for lang, page in started if lang == language)
        assert mine == sorted(report["executed"]), done.stdout
        assert sum(cells for (lang, _), (_, cells) in ended.items() if lang == language) == report["cells_executed"]
    assert len(started) >= 5 and all(key[0] == "es" for key in started), "Spanish executes, English reads the cache"
    assert ended.keys() == started.keys() and all(started[key] < ended[key][0] for key in started), done.stdout
    assert "without encryption" not in done.stdout + done.stderr
