"""`python -m execbook new-page SLUG` (nox -s new-page -- SLUG): a new page in both languages.

Writes the page in each language (same label, one executed example), the example
examples/<name>.py (one that raises, so the page shows an error from the first build: the book's
`scaffold` hook gives its own), its entry in examples/cases.toml, and the page in both books'
tables of contents. The page builds and passes the tests as it is written; AUTHORING.md says
what to change next.
"""

import re
import sys
from pathlib import Path
from typing import Any

from . import config
from .pages import FRONT_MATTER

# What a new page starts with: an example that raises, its manifest entry, and the page's words per
# language. A book gives its own with the `scaffold` hook ([tool.book.hooks]: a callable returning
# {"example": ..., "entry": ..., "words": {language: {"title": ..., "intro": ...}}}).
DEFAULT: dict[str, Any] = {
    "example": """\
# A list read past its end.
numbers = [1, 2, 3]
numbers[3]  # raises
""",
    "entry": """
[{name}]
expect = "raises"
error = "IndexError"
match = "list index out of range"
""",
    "words": {},  # any language: the English words below
}
WORDS = {"title": "New page", "intro": "Reading past the end of a list raises:"}


def template() -> dict[str, Any]:
    own = config.hook("scaffold")
    return DEFAULT if own is None else own()


PAGE = FRONT_MATTER + '''
({label})=
# {title}

{intro}

```{{code-cell}} ipython3
:load: {up}examples/{name}.py
```
'''
SLUG = re.compile(r"[a-z0-9][a-z0-9-]*(/[a-z0-9][a-z0-9-]*)*")


def problem(slug: str) -> str | None:
    if not SLUG.fullmatch(slug):
        return f"{slug!r} is not a page name: lowercase letters, digits and hyphens, folders with /"
    name = slug.replace("/", "_").replace("-", "_")
    taken = [str(p.relative_to(config.REPO)) for p in
             [*(config.DOCS / lang / f"{slug}.md" for lang in config.LANGUAGES), config.EXAMPLES / f"{name}.py"]
             if p.exists()]
    if taken:
        return f"{taken[0]} exists already; choose another name (nothing was written)"
    if f"[{name}]" in config.MANIFEST.read_text("utf-8"):
        return f"examples/cases.toml has an entry [{name}] already (nothing was written)"
    return None


def add_to_toctree(index: Path, slug: str) -> None:
    """The page goes last in the index's toctree, before the glossary, compatibility and status pages."""
    lines = index.read_text("utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("```{toctree}"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    at = next((i for i in range(start + 1, end) if lines[i].strip() in ("glossary", "compatibility", "status")), end)
    lines.insert(at, slug)
    index.write_text("\n".join(lines), "utf-8")


def main(command: str, arguments: list[str]) -> int:
    if len(arguments) != 1:
        print("usage: python -m execbook new-page SLUG   (e.g. breaks/26-my-break)", file=sys.stderr)
        return 2
    slug = arguments[0].removesuffix(".md")
    found = problem(slug)
    if found:
        print(f"book: error: {found}", file=sys.stderr)
        return 2
    name = slug.replace("/", "_").replace("-", "_")
    chosen = template()
    (config.EXAMPLES / f"{name}.py").write_text(chosen["example"], "utf-8")
    with open(config.MANIFEST, "a", encoding="utf-8") as manifest:
        manifest.write(chosen["entry"].format(name=name))
    for language in config.LANGUAGES:
        words: dict[str, str] = chosen["words"].get(language, WORDS)
        page = config.DOCS / language / f"{slug}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        up = "../" * (slug.count("/") + 2)
        page.write_text(PAGE.format(label=f"page-{name.replace('_', '-')}", name=name, up=up, **words), "utf-8")
        add_to_toctree(config.DOCS / language / "index.md", slug)
    written = [f"docs/{lang}/{slug}.md" for lang in config.LANGUAGES] + [f"examples/{name}.py"]
    print(f"book: wrote {', '.join(written)}, the entry [{name}] in examples/cases.toml and both tables of "
          "contents.\nNext: write the page's prose in both languages, then nox -s docs (AUTHORING.md).")
    return 0
