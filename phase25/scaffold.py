"""The new page phase 25 starts from (`python -m execbook new-page`, the `scaffold` hook): a write
that breaks backward, so the page shows the error from its first build, with one glued number,
one hidden assert, one glossary term and one link (string.Template texts: execbook.scaffold)."""

from typing import Any

EXAMPLE = """\
# A tensor that autograd saved, written in place before the backward pass.
import torch

x = torch.linspace(-1.0, 1.0, 4, requires_grad=True)
y = x.exp()  # exp saves its output for the backward pass
y.mul_(2)  # ... and this write changes it
y.sum().backward()  # raises

# %% hidden checks: run after the cell, out of sight; they glue what the prose quotes and assert
# what it states (execbook's public API). Nothing below this line is shown on the page.
from execbook import glue_number

glue_number("${name}_version", y._version)  # quoted as {glue:text}`${name}_version_en`
assert y._version == 1, "the page says one write took y from version 0 to version 1"
"""
ENTRY = """
[$name]
expect = "raises"
error = "RuntimeError"
match = "modified by an inplace operation"
"""
WORDS = {
    "es": {
        "title": "Página nueva",
        "intro": "`exp` guarda su resultado para la pasada hacia atrás; `mul_` "
        "(una {term}`$term`) lo sobrescribe, y la pasada hacia atrás lo detecta:",
        "after": "La escritura llevó `y` a la versión {glue:text}`${glued}_es`. La página "
        "{ref}`$link` dice qué escrituras son seguras.",
    },
    "en": {
        "title": "New page",
        "intro": "`exp` saves its result for the backward pass; `mul_` (an "
        "{term}`$term`) overwrites it, and the backward pass notices:",
        "after": "The write took `y` to version {glue:text}`${glued}_en`. The page "
        "{ref}`$link` says which writes are safe.",
    },
}


def label(slug: str) -> str:
    """The book's label convention: breaks/26-my-break -> phase-26-my-break, theory/05-x -> theory-05-x."""
    folder, _, page = slug.rpartition("/")
    prefix = {"breaks": "phase", "": "book"}.get(folder, folder.replace("/", "-"))
    return f"{prefix}-{page}"


def template() -> dict[str, Any]:
    return {
        "example": EXAMPLE,
        "entry": ENTRY,
        "words": WORDS,
        "glued": "${name}_version",
        "term": "operación in-place",
        "link": "phase-25-inplace-safe",
        "label": label,
    }
