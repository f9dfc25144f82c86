"""Build the book: Spanish, then English (never both at once: they share the execution cache).

    python docs/build.py            # both languages into docs/_build/html/{es,en}
    python docs/build.py en         # one language

After each language, docs/_build/execution/<lang>.json says which pages that build read and
which it executed (rather than took from the cache); `execution_report` reads it.
"""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
BUILD = DOCS / "_build"
LANGUAGES = ("es", "en")
# What a scratch copy of the repository leaves out (tests and the benchmark build in copies).
NOT_COPIED = (".git", ".nox", "experiments", "__pycache__", "*.egg-info", ".pytest_cache")


def sphinx_command(language, docs=DOCS):
    build = docs / "_build"
    return [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-n", "-q",
            "-d", str(build / "doctrees" / language), str(docs / language), str(build / "html" / language)]


def executed_pages(language, docs=DOCS):
    """The page sources of one language that execute code (MyST-NB front matter), sorted."""
    tree = docs / language
    return sorted(p for p in tree.rglob("*.md") if "file_format: mystnb" in p.read_text(encoding="utf-8"))


def execution_report(language, docs=DOCS):
    """{"read": [...], "executed": [...], "cells_executed": n, "seconds": s} of the last build."""
    return json.loads((docs / "_build" / "execution" / f"{language}.json").read_text(encoding="utf-8"))


def copy_repository(destination, keep_build=True):
    """A scratch copy of this repository (with the docs build state unless keep_build is False)."""
    ignore = shutil.ignore_patterns(*NOT_COPIED, *(() if keep_build else ("_build",)))
    shutil.copytree(DOCS.parent, destination, ignore=ignore)
    return Path(destination)


def check_claims(docs=DOCS):
    """Check every claim (python -m drift check) before any page executes, once per code
    fingerprint: a claim that broke stops the build with "claim X no longer holds on torch Y".

    What the check measured is saved as docs/_build/claims/<fingerprint>.json and handed to the
    pages (BOOK_LIVE_RECORD), so the compatibility page shows it instead of measuring it again.
    """
    sys.path.insert(0, str(docs))
    from conf_shared import code_fingerprint

    live = docs / "_build" / "claims" / f"{code_fingerprint(docs.parent)}.json"
    os.environ["BOOK_LIVE_RECORD"] = str(live)
    if live.exists():
        return
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "drift", "check", "--save", str(live)], cwd=docs.parent,
                          capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    if done.returncode:
        sys.exit(f"{done.stdout}{done.stderr}docs: stopped before building: the book's claims do not hold "
                 f"on the installed torch (see above)")
    print(f"docs: every claim holds ({time.perf_counter() - start:.1f} s)")


def build(languages=LANGUAGES, docs=DOCS):
    check_claims(docs)
    timings = {}
    for language in languages:
        start = time.perf_counter()
        done = subprocess.run(sphinx_command(language, docs))
        timings[language] = time.perf_counter() - start
        if done.returncode:
            sys.exit(f"docs: the {language} build failed (exit {done.returncode}); see the messages above")
    shutil.copyfile(docs / "root" / "index.html", docs / "_build" / "html" / "index.html")
    for language, seconds in timings.items():
        report = execution_report(language, docs)
        print(f"docs: {language} built in {seconds:.1f} s, {len(report['executed'])} page(s) executed "
              f"({report['cells_executed']} cells) -> {docs / '_build' / 'html' / language / 'index.html'}")
    return timings


if __name__ == "__main__":
    unknown = [a for a in sys.argv[1:] if a not in LANGUAGES]
    if unknown:
        sys.exit(f"docs: unknown language {unknown[0]!r}; choose from {', '.join(LANGUAGES)}")
    build(tuple(sys.argv[1:]) or LANGUAGES)
