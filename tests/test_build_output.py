"""A build that says what it does (docs/_ext/progress.py): one line when a page starts executing,
one when it ends (seconds, cells); nothing for a page served from the execution cache; and no
"[IPKernelApp] WARNING | Kernel is running over TCP without encryption" (kernels run over IPC).

Builds a one-page MyST-NB book with Sphinx, as docs/build.py does (-q, no stdin, CI=true).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from book.pages import EXECUTED_PAGE_FRONT_MATTER

EXTENSIONS = Path(__file__).resolve().parents[1] / "docs" / "_ext"

CONF = f"""
import sys
sys.path.insert(0, {str(EXTENSIONS)!r})
extensions = ["myst_nb", "progress"]
language = "en"
nb_execution_mode = "cache"
nb_execution_cache_path = {{cache!r}}
nb_execution_raise_on_error = True
"""

PAGE = EXECUTED_PAGE_FRONT_MATTER + """
# Two cells

```{code-cell} ipython3
answer = 6 * 7
```

```{code-cell} ipython3
print(f"the answer is {answer}")
```
"""

STARTED = re.compile(r"^docs: en: executing index \.\.\.$", re.M)
ENDED = re.compile(r"^docs: en: index executed in \d+\.\d s \(2 cells\)$", re.M)


@pytest.fixture
def book(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    (source / "conf.py").write_text(CONF.format(cache=str(tmp_path / "cache")), encoding="utf-8")
    (source / "index.md").write_text(PAGE, encoding="utf-8")
    return tmp_path


def sphinx(book):
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-d", str(book / "doctrees"),
         str(book / "source"), str(book / "html")],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
        env={**os.environ, "CI": "true"})
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_a_build_says_which_pages_it_executes_and_the_kernel_does_not_warn(book):
    first = sphinx(book)
    started, ended = STARTED.search(first.stdout), ENDED.search(first.stdout)
    assert started and ended and started.start() < ended.start(), first.stdout
    assert "without encryption" not in first.stdout + first.stderr
    assert "the answer is 42" in (book / "html" / "index.html").read_text(encoding="utf-8")

    unchanged = sphinx(book)
    assert unchanged.stdout == "", unchanged.stdout

    with open(book / "source" / "index.md", "a", encoding="utf-8") as page:
        page.write("\nA sentence: prose only, the cache serves the outputs.\n")
    prose = sphinx(book)
    assert "executing" not in prose.stdout and "without encryption" not in prose.stdout + prose.stderr
    assert "A sentence: prose only" in (book / "html" / "index.html").read_text(encoding="utf-8")
