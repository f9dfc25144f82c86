"""`python -m execbook new-page SLUG`: a new page in every language, its example (one that raises; the
`scaffold` hook gives a book's own), its manifest entry, and the page in each table of contents: a
template that builds as written, with a comment listing what to edit next."""

import argparse
import re
import sys
from pathlib import Path
from string import Template
from typing import Any

from . import config, source
from .newbook import FRONT_MATTER

# What a new page starts with, as string.Template texts ($name: the example's; in the words, $term, $link
# and $glued, the glued key). The `scaffold` hook returns a dict of these keys ("label": slug -> label).
DEFAULT: dict[str, Any] = {
    "example": """\
# A list read past its end.
numbers = [1, 2, 3]
numbers[3]  # raises

# %% hidden checks: run after the cell, out of sight; they glue what the prose quotes and assert
# what it states (execbook's public API). Nothing below this line is shown on the page.
from execbook import glue_number

glue_number("${name}_length", len(numbers))  # quoted as {glue:text}`${name}_length_en`
assert len(numbers) == 3, "the page says the list holds three numbers"
""",
    "entry": """
[$name]
expect = "raises"
error = "IndexError"
match = "list index out of range"
""",
    "words": {},  # any language: the English words below
    "glued": "${name}_length",
    "term": None,  # the first term of the glossary
    "link": None,  # the glossary's label
}
WORDS = {
    "title": "New page",
    "intro": "Reading past the end of a list (a {term}`$term` links to the glossary) raises:",
    "after": "The list holds {glue:text}`${glued}_en` numbers; {ref}`$link` says more.",
}
PAGE = (
    FRONT_MATTER
    + """
($label)=
# $title

$intro

```{code-cell} ipython3
:load: ${up}examples/$name.py
```

$after

% What to do next (delete this comment when done; the engine's tutorial says more):
% 1. Write the prose in both languages (docs/<language>/$slug.md): same labels, sections and
%    cells; python -m execbook check names any difference, at its line, in seconds.
% 2. Change examples/$name.py: what a learner types above `# %% hidden checks`, the glued
%    values and asserts below; python -m execbook run $name shows what it prints and glues.
% 3. If it no longer raises, change its entry [$name] in examples/cases.toml.
% 4. Move the page in every table of contents (docs/<language>/index.md) if it belongs
%    elsewhere, and link to it from other pages with {ref}`$label`.
% 5. python -m execbook build builds it; the last lines say what failed, where and what to do.
"""
)
SLUG = re.compile(r"[a-z0-9][a-z0-9-]*(/[a-z0-9][a-z0-9-]*)*")


def template() -> dict[str, Any]:
    own = config.hook("scaffold")
    return DEFAULT if own is None else {**DEFAULT, **own()}


def problem(slug: str) -> str | None:
    if not SLUG.fullmatch(slug):
        return f"{slug!r} is not a page name: lowercase letters, digits and hyphens, folders with /"
    name = slug.replace("/", "_").replace("-", "_")
    paths = [*(config.DOCS / lang / f"{slug}.md" for lang in config.LANGUAGES), config.EXAMPLES / f"{name}.py"]
    if taken := [str(p.relative_to(config.REPO)) for p in paths if p.exists()]:
        return f"{taken[0]} exists already; choose another name (nothing was written)"
    if f"[{name}]" in config.MANIFEST.read_text("utf-8"):
        return f"examples/cases.toml has an entry [{name}] already (nothing was written)"
    return None


def add_to_toctree(index: Path, slug: str) -> str:
    """Put the page last in the index's toctree, before [tool.book] toctree-tail; the page it comes after."""
    text = index.read_text("utf-8")
    toctree = next(block for block in source.parse(text).blocks if block.directive == "toctree")
    entries = [(number, line.strip()) for number, line in toctree.body if line.strip()]  # below its options
    lines = text.split("\n")
    at = next((number for number, entry in entries if entry in config.TOCTREE_TAIL), toctree.closing or len(lines) + 1)
    index.write_text("\n".join([*lines[: at - 1], slug, *lines[at - 1 :]]), "utf-8")
    return next((entry for number, entry in reversed(entries) if number < at), "the first page")


def default_label(slug: str) -> str:
    """The label convention the engine's documentation teaches: book-, then the page's path, - for /."""
    return "book-" + slug.replace("/", "-")


def glossary_term(language: str, first_language_term: str | None) -> str | None:
    """The term the template cites in a language: the first language's term's pair, else the first; or None."""
    paths = {lang: config.DOCS / lang / f"{source.GLOSSARY}.md" for lang in config.LANGUAGES}
    if not all(path.is_file() for path in paths.values()):
        return None
    entries = {lang: source.glossary_entries(source.read(path)) for lang, path in paths.items()}
    first = [[t for _, t in entry] for entry in entries[next(iter(config.LANGUAGES))]]
    at = next((i for i, terms in enumerate(first) if first_language_term in terms), 0)
    mine = entries[language]
    return mine[at][0][1] if len(mine) > at else mine[0][0][1] if mine else None


def link_target(wanted: str | None, own: str) -> str:
    """The label the template links to: the one asked for, else the glossary's, else the page's own."""
    sources = source.page_sources(config.DOCS / next(iter(config.LANGUAGES)))
    labels = {page: [label for _, label in source.read(path).labels] for page, path in sources.items()}
    if any(wanted in found for found in labels.values()):
        return str(wanted)
    return next(iter(labels.get(source.GLOSSARY, [])), own)


def main(given: argparse.Namespace) -> int:
    slug = given.slug.removesuffix(".md")
    if found := problem(slug):
        print(f"execbook: error: {found}", file=sys.stderr)
        return 2
    name = slug.replace("/", "_").replace("-", "_")
    chosen = template()
    label = chosen.get("label", default_label)(slug)
    glued = Template(chosen["glued"]).substitute(name=name)
    (config.EXAMPLES / f"{name}.py").write_text(Template(chosen["example"]).substitute(name=name), "utf-8")
    with open(config.MANIFEST, "a", encoding="utf-8") as manifest:
        manifest.write(Template(chosen["entry"]).substitute(name=name))
    after, fields = "", {"name": name, "glued": glued, "link": link_target(chosen["link"], label)}
    for language in config.LANGUAGES:
        words: dict[str, str] = {**WORDS, **chosen["words"].get(language, {})}
        term = glossary_term(language, chosen["term"])
        if term is None:  # no glossary: the words without the role
            words = {key: text.replace("{term}`$term`", "term") for key, text in words.items()}
        filled = {key: Template(text).substitute(fields, term=term) for key, text in words.items()}
        filled["after"] = filled["after"].replace(f"{glued}_en", f"{glued}_{language}")  # the language's own key
        page = config.DOCS / language / f"{slug}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        up = "../" * (slug.count("/") + 2)
        page.write_text(Template(PAGE).substitute(label=label, name=name, up=up, slug=slug, **filled), "utf-8")
        after = add_to_toctree(config.DOCS / language / "index.md", slug)
    written = [f"docs/{lang}/{slug}.md" for lang in config.LANGUAGES] + [f"examples/{name}.py"]
    print(
        f"execbook: wrote {', '.join(written)} and the entry [{name}] in examples/cases.toml.\n"
        f"  Its label: {label} (link to it with {{ref}}`{label}`). In every table of contents "
        f"(docs/<language>/index.md) it comes after {after}: move that line to place it elsewhere.\n"
        "  It shows one example that raises, one glued number, one hidden assert, one glossary term and one "
        "link.\n  Next:\n"
        f"  1. python -m execbook run {name}    what the example prints and glues, in seconds\n"
        "  2. write the prose in both languages; python -m execbook check    names what differs, in seconds\n"
        f"  3. change examples/{name}.py (and its entry, if it stops raising)\n"
        "  4. python -m execbook build    builds the book; its last lines say what failed, where, and what to do"
    )
    return 0
