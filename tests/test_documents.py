"""The documents a newcomer reads first stay short: README at most 120 lines; README and
AUTHORING in sentences of at most 20 words on average and none over 50 (counted as the course's
reader tool counts them: fenced code, inline code and table rows left out); no paragraph or table
row standing in two documents."""

import re
from itertools import combinations
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = ["README.md", "AUTHORING.md", "CONTRIBUTING.md", "inplace_doctor/README.md"]


def sentences(markdown: str) -> list[str]:
    text = re.sub(r"(?ms)^\s*(`{3,}|~{3,}).*?^\s*\1\s*$", " ", markdown)
    text = re.sub(r"(`+).+?\1", "x", text)
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("|"))
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z(*x¿¡])|\n\s*\n|\n\s*(?:[-*]|\d+\.)\s", text)
    return [part for part in parts if len(part.split()) >= 3]


def test_the_sentence_count_splits_as_the_reader_tool_does():
    text = "One two three. Four five six seven!\n\n- a list item here\n\n```\nnot counted at all\n```\n"
    assert [len(s.split()) for s in sentences(text)] == [3, 4, 5]


def test_readme_is_short():
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 120, f"README.md has {lines} lines (at most 120): move detail to CONTRIBUTING.md"


@pytest.mark.parametrize("name", ["README.md", "AUTHORING.md"])
def test_sentences_are_short(name):
    found = sentences((REPO / name).read_text(encoding="utf-8"))
    words = [len(s.split()) for s in found]
    longest = max(found, key=lambda s: len(s.split()))
    assert sum(words) / len(words) <= 20, f"{name}: {sum(words) / len(words):.1f} words a sentence on average"
    assert max(words) <= 50, f"{name}: a sentence of {max(words)} words: {' '.join(longest.split())[:120]}"


def blocks(name: str) -> set[str]:
    """The paragraphs (of at least 12 words) and table rows of a document, whitespace folded."""
    text = re.sub(r"(?ms)^\s*(`{3,}|~{3,}).*?^\s*\1\s*$", "\n\n", (REPO / name).read_text(encoding="utf-8"))
    rows = {" ".join(line.split()) for line in text.splitlines() if line.lstrip().startswith("|")}
    rows = {row for row in rows if not set(row) <= set("|-: ")}
    paragraphs = {" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if not p.lstrip().startswith("|")}
    return rows | {p for p in paragraphs if len(p.split()) >= 12}


@pytest.mark.parametrize("first, second", list(combinations(DOCUMENTS, 2)))
def test_no_paragraph_or_table_row_stands_in_two_documents(first, second):
    if not (REPO / first).exists() or not (REPO / second).exists():
        pytest.fail(f"{first} or {second} is missing")
    shared = blocks(first) & blocks(second)
    assert not shared, f"{first} and {second} both hold: {sorted(shared)[0][:120]}"
