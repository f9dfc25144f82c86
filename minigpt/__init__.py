"""A small GPT for phase 25 of the course: an in-place op that breaks autograd."""

from .model import GPT, GPTConfig

__all__ = ["GPT", "GPTConfig"]
