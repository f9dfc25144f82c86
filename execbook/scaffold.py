"""`python -m book new-page SLUG` (nox -s new-page -- SLUG): a new page in both languages.

Writes docs/es/SLUG.md and docs/en/SLUG.md (same label, one executed example), the example
examples/<name>.py (a write that breaks backward, so the page shows an error from the first
build), its entry in examples/cases.toml, and the page in both books' tables of contents. The page
builds and passes the tests as it is written; AUTHORING.md says what to change next.
"""

import re
import sys
from pathlib import Path

from . import config
from .pages import FRONT_MATTER

EXAMPLE = '''\
# A tensor that autograd saved, written in place before the backward pass.
import torch

x = torch.linspace(-1.0, 1.0, 4, requires_grad=True)
y = x.exp()  # exp saves its output for the backward pass
y.mul_(2)  # ... and this write changes it
y.sum().backward()  # raises
'''
ENTRY = '''
[{name}]
expect = "raises"
error = "RuntimeError"
match = "modified by an inplace operation"
'''
PAGE = FRONT_MATTER + '''
({label})=
# {title}

{intro}

```{{code-cell}} ipython3
:load: {up}examples/{name}.py
```
'''
WORDS = {
    "es": {"title": "Página nueva", "intro": "`exp` guarda su resultado para el paso hacia atrás; "
           "`mul_` lo sobrescribe, y el paso hacia atrás lo detecta:"},
    "en": {"title": "New page", "intro": "`exp` saves its result for the backward pass; `mul_` "
           "overwrites it, and the backward pass notices:"},
}
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
        print("usage: python -m book new-page SLUG   (e.g. breaks/26-my-break)", file=sys.stderr)
        return 2
    slug = arguments[0].removesuffix(".md")
    found = problem(slug)
    if found:
        print(f"book: error: {found}", file=sys.stderr)
        return 2
    name = slug.replace("/", "_").replace("-", "_")
    (config.EXAMPLES / f"{name}.py").write_text(EXAMPLE, "utf-8")
    with open(config.MANIFEST, "a", encoding="utf-8") as manifest:
        manifest.write(ENTRY.format(name=name))
    for language, words in WORDS.items():
        page = config.DOCS / language / f"{slug}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        up = "../" * (slug.count("/") + 2)
        page.write_text(PAGE.format(label=f"page-{name.replace('_', '-')}", name=name, up=up, **words), "utf-8")
        add_to_toctree(config.DOCS / language / "index.md", slug)
    written = [f"docs/{lang}/{slug}.md" for lang in config.LANGUAGES] + [f"examples/{name}.py"]
    print(f"book: wrote {', '.join(written)}, the entry [{name}] in examples/cases.toml and both tables of "
          "contents.\nNext: write the page's prose in both languages, then nox -s docs (AUTHORING.md).")
    return 0
