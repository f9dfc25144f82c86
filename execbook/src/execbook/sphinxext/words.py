"""The engine's words on a page, a table per language in words.toml; a book changes a word, or adds a language, in
[tool.book.words.<language>] (a language without a table starts from English, and the build says so)."""

import re
import sys
import tomllib
from functools import cache
from pathlib import Path

from .. import cases, comments, config, pages, tracebacks

WORDS: dict[str, dict[str, str]] = tomllib.loads(Path(__file__).with_name("words.toml").read_text("utf-8"))


@cache
def words(language: str) -> dict[str, str]:
    """The engine's words in this language, with the book's own ([tool.book.words]) over them."""
    book = config.WORDS.get(language, {})
    if unknown := set(book) - set(WORDS["en"]):
        raise ValueError(f"pyproject.toml [tool.book.words.{language}]: no such word {', '.join(sorted(unknown))}")
    lacking = [] if language in WORDS else sorted(set(WORDS["en"]) - set(book))
    if lacking:
        print(
            f"execbook: warning: no engine words in {language!r}: English for {len(lacking)} of them "
            f"(pyproject.toml [tool.book.words.{language}] gives them: {', '.join(lacking[:3])}...)",
            file=sys.stdout,  # the build shows what Sphinx's process prints; a Sphinx warning would fail it (-W)
            flush=True,
        )
    return {**WORDS.get(language, WORDS["en"]), **book}


def speaks(language: str) -> str:
    """The language of the engine's words on a page in this one: its own, else English."""
    return language if language in WORDS or "switch" in config.WORDS.get(language, {}) else "en"


def left_out_in(text: str, language: str) -> str:
    """text with each line standing for frames left out (tracebacks.fold_line's, in English) in language's words."""
    said = words(language)

    def reworded(found: re.Match[str]) -> str:
        *names, last = re.split(r", | and ", found["where"])
        where = f"{', '.join(names)} {said['and']} {last}" if names else last
        return said["folded_one" if found["count"] == "1" else "folded"].format(count=found["count"], where=where)

    return tracebacks.FOLDED.sub(reworded, text)


def in_language(name: str, language: str, part: str, text: str = "") -> str:
    """Example name's shown code (part "code"), or a "traceback" or "stderr" text of its cell, as a page in
    language shows it: with its comments (execbook.comments) and the frames left out in language's words."""
    code = cases.split(cases.manifest()[name].path)[0]
    if part == "code":
        return pages.magics_shown(comments.shown(code, language)).rstrip("\n")
    return left_out_in(comments.in_traceback(text, code, language) if part == "traceback" else text, language)
