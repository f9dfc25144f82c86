"""The new page phase 25 starts from (`python -m execbook new-page`, the `scaffold` hook): a write
that breaks backward, so the page shows the error from its first build."""

from typing import Any

EXAMPLE = """\
# A tensor that autograd saved, written in place before the backward pass.
import torch

x = torch.linspace(-1.0, 1.0, 4, requires_grad=True)
y = x.exp()  # exp saves its output for the backward pass
y.mul_(2)  # ... and this write changes it
y.sum().backward()  # raises
"""
ENTRY = """
[{name}]
expect = "raises"
error = "RuntimeError"
match = "modified by an inplace operation"
"""
WORDS = {
    "es": {"title": "Página nueva", "intro": "`exp` guarda su resultado para el paso hacia atrás; "
           "`mul_` lo sobrescribe, y el paso hacia atrás lo detecta:"},
    "en": {"title": "New page", "intro": "`exp` saves its result for the backward pass; `mul_` "
           "overwrites it, and the backward pass notices:"},
}


def template() -> dict[str, Any]:
    return {"example": EXAMPLE, "entry": ENTRY, "words": WORDS}
