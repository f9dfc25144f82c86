"""`python -m book new-page SLUG` (nox -s new-page -- SLUG): a new page in both languages.

Writes docs/es/SLUG.md and docs/en/SLUG.md (same label, one executed example), the example
examples/<name>.py (a write that breaks backward, so the page shows an error from the first
build), its entry in examples/cases.toml, and the page in both books' tables of contents. The page
builds and passes the tests as it is written; AUTHORING.md says what to change next.
"""

import re
import sys
from pathlib import Path
from string import Template

from . import check, config
from .check import FRONT_MATTER

EXAMPLE = '''\
# A tensor that autograd saved, written in place before the backward pass.
import torch

x = torch.linspace(-1.0, 1.0, 4, requires_grad=True)
y = x.exp()  # exp saves its output for the backward pass
y.mul_(2)  # ... and this write changes it
y.sum().backward()  # raises

# %% hidden checks: run after the cell, out of sight; they glue what the prose quotes and assert
# what it states (book/checks.py). Nothing below this line is shown on the page.
from book.checks import glue_number

glue_number("${name}_version", y._version)  # the page quotes it: {glue:text}`${name}_version_en`
assert y._version == 1, "the page says one write took y from version 0 to version 1"
'''
ENTRY = '''
[$name]
expect = "raises"
error = "RuntimeError"
match = "modified by an inplace operation"
'''
PAGE = FRONT_MATTER + '''
($label)=
# $title

$intro

```{code-cell} ipython3
:load: ${up}examples/$name.py
```

$after

% What to do next (delete this comment when done; AUTHORING.md says more):
% 1. Write the prose in both languages (docs/es/$slug.md and docs/en/$slug.md): same labels,
%    sections and cells; python -m book check names any difference in seconds.
% 2. Change examples/$name.py: what a learner types above `# %% hidden checks`, the glued
%    values and asserts below; python -m book run $name shows what it prints and glues.
% 3. If it no longer raises, change its entry [$name] in examples/cases.toml.
% 4. Move the page in both tables of contents (docs/es/index.md, docs/en/index.md) if it
%    belongs elsewhere, and link to it from other pages with {ref}`$label`.
% 5. nox -s docs builds it; the last lines say what failed, where and what to do.
'''
WORDS = {
    "es": {"title": "Página nueva", "intro": "`exp` guarda su resultado para el paso hacia atrás; `mul_` "
           "(una {term}`$term`) lo sobrescribe, y el paso hacia atrás lo detecta:",
           "after": "La escritura llevó `y` a la versión {glue:text}`${name}_version_es`. La página "
           "{ref}`$link` dice qué escrituras son seguras."},
    "en": {"title": "New page", "intro": "`exp` saves its result for the backward pass; `mul_` (an "
           "{term}`$term`) overwrites it, and the backward pass notices:",
           "after": "The write took `y` to version {glue:text}`${name}_version_en`. The page "
           "{ref}`$link` says which writes are safe."},
}
TERM = {"en": "in-place op"}  # the glossary term the template links to (its other languages pair up)
LINK = "phase-25-inplace-safe"  # the page the template links to, if the book has it


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


def add_to_toctree(index: Path, slug: str) -> str:
    """The page goes last in the index's toctree, before the glossary, compatibility and status
    pages; the page it comes after."""
    lines = index.read_text("utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("```{toctree}"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    at = next((i for i in range(start + 1, end) if lines[i].strip() in ("glossary", "compatibility", "status")), end)
    lines.insert(at, slug)
    index.write_text("\n".join(lines), "utf-8")
    return next((line.strip() for line in reversed(lines[start + 1:at]) if line.strip() and not line.startswith(":")),
                "the first page")


def label_for(slug: str) -> str:
    """The book's label convention: breaks/26-my-break -> phase-26-my-break, theory/05-x -> theory-05-x."""
    folder, _, page = slug.rpartition("/")
    prefix = {"breaks": "phase", "": "book"}.get(folder, folder.replace("/", "-"))
    return f"{prefix}-{page}"


def glossary_term(language: str) -> str:
    """The glossary term the template cites in a language: the one paired with TERM["en"] (entries pair
    up by position, book.check), else the first term."""
    entries = {lang: check.glossary_entries(config.DOCS / lang / f"{check.GLOSSARY}.md") for lang in config.LANGUAGES}
    english = [[t for _, t in entry] for entry in entries.get("en", [])]
    at = next((i for i, terms in enumerate(english) if TERM["en"] in terms), 0)
    mine = entries[language]
    return mine[at][0][1] if len(mine) > at else mine[0][0][1]


def link_target() -> str:
    labels = {label for page in check.page_sources(config.DOCS / next(iter(config.LANGUAGES))).values()
              for _, label in check.read(page).labels}
    return LINK if LINK in labels else "book-glossary"


def main(command: str, arguments: list[str]) -> int:
    if len(arguments) != 1:
        print("usage: python -m book new-page SLUG   (e.g. breaks/26-my-break)", file=sys.stderr)
        return 2
    slug = arguments[0].removesuffix(".md")
    found = problem(slug)
    if found:
        print(f"book: error: {found}", file=sys.stderr)
        return 2
    name = slug.replace("/", "_").replace("-", "_")
    label = label_for(slug)
    (config.EXAMPLES / f"{name}.py").write_text(Template(EXAMPLE).substitute(name=name), "utf-8")
    with open(config.MANIFEST, "a", encoding="utf-8") as manifest:
        manifest.write(Template(ENTRY).substitute(name=name))
    after = ""
    for language, words in WORDS.items():
        page = config.DOCS / language / f"{slug}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        up = "../" * (slug.count("/") + 2)
        filled = {k: Template(v).substitute(name=name, term=glossary_term(language), link=link_target())
                  for k, v in words.items()}
        page.write_text(Template(PAGE).substitute(label=label, name=name, up=up, slug=slug, **filled), "utf-8")
        after = add_to_toctree(config.DOCS / language / "index.md", slug)
    written = [f"docs/{lang}/{slug}.md" for lang in config.LANGUAGES] + [f"examples/{name}.py"]
    print(f"book: wrote {', '.join(written)} and the entry [{name}] in examples/cases.toml.\n"
          f"  Its label: {label} (link to it with {{ref}}`{label}`). In both tables of contents "
          f"(docs/<lang>/index.md) it comes after {after}: move that line to place it elsewhere.\n"
          "  It shows one example that raises, one glued number, one hidden assert, one glossary term and one "
          "link.\n  Next:\n"
          f"  1. python -m book run {name}    what the example prints and glues, in seconds\n"
          "  2. write the prose in both languages; python -m book check    names what differs, in seconds\n"
          f"  3. change examples/{name}.py (and its entry, if it stops raising)\n"
          "  4. nox -s docs    builds the book (AUTHORING.md: when the build fails)")
    return 0
