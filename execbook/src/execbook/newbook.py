"""`python -m execbook new-book DIR --languages fr,en`: a minimal book in DIR that builds as written: its
pyproject.toml, in each language an index and a one-term glossary (English words, to translate), then
`new-page first-page`. What it writes points at the engine's documentation, whose tutorial starts here."""

import argparse
import re
import subprocess
import sys
from importlib.metadata import metadata
from pathlib import Path

# what makes a Markdown page one that executes (MyST-NB); this module reads no book (it writes one)
FRONT_MATTER = "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n  display_name: Python 3\n---\n"
PYPROJECT = """\
[project]
name = "{name}"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["execbook"]

# The book's settings (each one: {documentation}en/reference/settings.html): change the addresses to yours
[tool.book]
languages = {{ {languages} }}  # the build order too
titles = {{ {titles} }}
site-url = "https://example.org/{name}/"
repository = "https://github.com/your-name/{name}"
toctree-tail = ["glossary"]  # new-page puts a page before these
"""
FILES = {
    "conf.py": "from execbook.sphinxext.config import configure\n\nglobals().update(configure({language!r}))\n",
    "index.md": "(book-index)=\n# {title}\n\nA book whose pages run their code as it is built.\n\n"
    "```{{toctree}}\n:maxdepth: 2\n\nglossary\n```\n",
    "glossary.md": "(book-glossary)=\n# Glossary\n\n```{{glossary}}\nlist\n  A sequence of values.\n```\n",
}


def documentation() -> str:
    """The address of the engine's documentation (execbook/pyproject.toml's [project.urls] Documentation)."""
    return dict(url.split(", ", 1) for url in metadata("execbook").get_all("Project-URL") or [])["Documentation"]


def main(given: argparse.Namespace) -> int:
    from babel import Locale, UnknownLocaleError

    root, languages = Path(given.dir).resolve(), given.languages.split(",")
    try:  # each language's name in itself, "Français"
        names = {code: str(Locale.parse(code).get_display_name(code)).capitalize() for code in dict.fromkeys(languages)}
    except (ValueError, UnknownLocaleError) as wrong:
        print(f"execbook: error: languages {given.languages!r}: {wrong}; codes such as fr,en", file=sys.stderr)
        return 2
    if root.exists() and any(root.iterdir()):
        print(f"execbook: error: {root} is not empty; name a new folder (nothing was written)", file=sys.stderr)
        return 2
    name = re.sub(r"[^a-z0-9-]+", "-", root.name.lower()).strip("-") or "book"
    title = f"The book {root.name}"
    named = ", ".join(f'{code} = "{spoken}"' for code, spoken in names.items())
    titles, url = ", ".join(f'{code} = "{title}"' for code in names), documentation()
    files = {
        "pyproject.toml": PYPROJECT.format(name=name, documentation=url, languages=named, titles=titles),
        "examples/cases.toml": f"# What each example must do: {documentation()}en/reference/manifest.html\n",
        ".gitignore": "docs/_build/\n",  # what a build writes
        **{f"docs/{c}/{file}": text.format(language=c, title=title) for c in names for file, text in FILES.items()},
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    page = [sys.executable, "-m", "execbook", "--root", str(root), "new-page", "first-page"]
    done = subprocess.run(page, capture_output=True, text=True)
    if done.returncode:
        print(f"execbook: error: new-page in {root} failed:\n{done.stderr}", file=sys.stderr)
        return 1
    print(
        f"execbook: wrote a book in {root} ({', '.join(names)}); translate its English words.\n"
        f"  Next: cd {root} && python -m execbook build    (the site: docs/_build/html/<language>/)\n"
        f"  The tutorial goes on from here: {documentation()}en/tutorial/index.html"
    )
    return 0
