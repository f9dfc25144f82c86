"""A small GPT for phase 25 of the course: an in-place op that breaks autograd."""

from typing import Any

__all__ = ["GPT", "GPTConfig"]


def __getattr__(name: str) -> Any:
    """minigpt.GPT and minigpt.GPTConfig, imported on first use: importing a tool module
    (minigpt.experiment, which the book's Sphinx process uses) does not import torch."""
    if name in __all__:
        from . import model

        return getattr(model, name)
    raise AttributeError(f"module 'minigpt' has no attribute {name!r}")
