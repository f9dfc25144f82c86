"""Build the book: Spanish, then English (never both at once: they share the execution cache).

    python docs/build.py            # both languages into docs/_build/html/{es,en}
    python docs/build.py en         # one language

After each language, docs/_build/execution/<lang>.json says which pages that build read, which it
executed (rather than took from the cache) and which experiments it computed (book.store);
`execution_report` reads it. The claims are checked by the compatibility page, from the results
the other pages computed: a claim that no longer holds stops the build with "claim X no longer
holds on torch Y"; a committed record that is merely stale is flagged on that page.
"""

import json
import re
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
    """Sphinx reads the pages a build must read in two processes (-j 2), giving each a run of
    them (half each), and docs/_ext/casecells.py orders them (conf_shared: book_read_alone,
    book_read_last): on a first build the break page, the longest, runs in the first process and
    the other executed pages in the second, the compatibility page last, as its claims read what
    the others computed; a later build that executes two pages, one in each. book.store sees that
    nothing is computed twice: a process that needs an experiment the other is computing waits
    for it, and a case outcome the other's page promised is waited for, not run again. Were an
    experiment ever computed twice, the build stops below."""
    build = docs / "_build"
    return [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-n", "-q", "-j", "2",
            "-d", str(build / "doctrees" / language), str(docs / language), str(build / "html" / language)]


def executed_pages(language, docs=DOCS):
    """The page sources of one language that execute code (MyST-NB front matter), sorted."""
    tree = docs / language
    return sorted(p for p in tree.rglob("*.md") if "file_format: mystnb" in p.read_text(encoding="utf-8"))


def execution_report(language, docs=DOCS):
    """{"read": [...], "executed": [...], "cells_executed": n, "experiments": [...], "seconds": s}
    of the last build."""
    return json.loads((docs / "_build" / "execution" / f"{language}.json").read_text(encoding="utf-8"))


def copy_repository(destination, keep_build=True, repository=DOCS.parent):
    """A scratch copy of this repository, or of another copy (with the docs build state unless
    keep_build is False)."""
    ignore = shutil.ignore_patterns(*NOT_COPIED, *(() if keep_build else ("_build",)))
    shutil.copytree(repository, destination, ignore=ignore)
    return Path(destination)


# What may differ between two builds of one commit: dates (the build date, each page's stamp time
# and when it ran, on the status page), nothing else (tests/test_reproducible.py).
DATE = re.compile(rb"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?(?: UTC)?)?")


SEARCH_INDEX = re.compile(rb"\ASearch\.setIndex\((.*)\)\s*\Z", re.S)


def search_index(data):
    """Sphinx's searchindex.js without the words that lead to no page: an incremental build keeps
    the words of the text it re-read and replaced, with an empty list of pages (they find
    nothing; a cold build has no such entry)."""
    found = SEARCH_INDEX.match(data)
    if not found:
        return data
    index = json.loads(found.group(1))
    for key in ("terms", "titleterms"):
        index[key] = {word: pages for word, pages in index.get(key, {}).items() if pages != []}
    return json.dumps(index, sort_keys=True, ensure_ascii=False).encode()


def site_files(site):
    """relative path -> bytes of every file of a published site, dates blanked (DATE)."""
    site = Path(site)
    read = lambda p: search_index(p.read_bytes()) if p.name == "searchindex.js" else p.read_bytes()  # noqa: E731
    return {p.relative_to(site).as_posix(): DATE.sub(b"<date>", read(p)) for p in sorted(site.rglob("*")) if p.is_file()}


def site_differences(site_a, site_b):
    """One line per file that two published sites do not share, or that differs beyond its dates
    (with the first line that differs)."""
    a, b = site_files(site_a), site_files(site_b)
    lines = [f"only in {site}: {path}" for site, mine, other in ((site_a, a, b), (site_b, b, a))
             for path in sorted(set(mine) - set(other))]
    for path in sorted(set(a) & set(b)):
        if a[path] != b[path]:
            at = next((i for i, (x, y) in enumerate(zip(a[path], b[path])) if x != y), min(len(a[path]), len(b[path])))
            start = max(a[path].rfind(b"\n", 0, at) + 1, at - 80)  # from the line's start, or 80 bytes back
            lines.append(f"{path}: {a[path][start:at + 80]!r} != {b[path][start:at + 80]!r}")
    return lines


def build(languages=LANGUAGES, docs=DOCS):
    timings = {}
    for language in languages:
        start = time.perf_counter()
        done = subprocess.run(sphinx_command(language, docs))
        timings[language] = time.perf_counter() - start
        if done.returncode:
            sys.exit(f"docs: the {language} build failed (exit {done.returncode}); see the messages above")
    # (each language's build also wrote the site root: the language chooser, docs/root/index.html,
    # and sitemap.xml with both languages' pages; docs/_ext/bilingual.py)
    computed = [e for language in timings for e in execution_report(language, docs)["experiments"]]
    repeated = sorted({e for e in computed if computed.count(e) > 1})
    if repeated:
        sys.exit(f"docs: this build computed an experiment more than once: {', '.join(repeated)}")
    for language, seconds in timings.items():
        report = execution_report(language, docs)
        print(f"docs: {language} built in {seconds:.1f} s, {len(report['executed'])} page(s) executed "
              f"({report['cells_executed']} cells, {len(report['experiments'])} experiment(s) computed) "
              f"-> {(docs / '_build' / 'html' / language / 'index.html').relative_to(docs.parent)}")
    say_if_the_record_is_stale(docs)
    return timings


def say_if_the_record_is_stale(docs=DOCS):
    """The compatibility page evaluated the claims (one that broke stopped the build there); when
    only the wording changed, the committed record of this release is stale: say so."""
    live = docs / "_build" / "store" / "live-record.json"
    if live.is_file():
        stale = json.loads(live.read_text(encoding="utf-8")).get("stale")
        if stale:
            print(f"docs: note: records/torch-{stale['release']}.json is stale ({', '.join(stale['what'])} "
                  f"changed; every claim holds): re-record it with nox -s \"drift(torch='{stale['release']}')\"")


if __name__ == "__main__":
    unknown = [a for a in sys.argv[1:] if a not in LANGUAGES]
    if unknown:
        sys.exit(f"docs: unknown language {unknown[0]!r}; choose from {', '.join(LANGUAGES)}")
    build(tuple(sys.argv[1:]) or LANGUAGES)
