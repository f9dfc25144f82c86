"""Comments in every language inside an example (`# en: ...`, `# es: ...`, consecutive, at one
indentation: AUTHORING.md): a page shows its language's (`shown`), the executed notebook an empty one
(`neutral`: one execution serves every language; editing a comment executes nothing)."""

import re
from collections.abc import Callable
from pathlib import Path

from . import config

TAG = re.compile(r"^(?P<indent>[ \t]*)# (?P<language>[a-z]{2}): ?(?P<text>.*)$")


def _groups(lines: list[str]) -> list[tuple[int, int, dict[str, str]]]:
    """(first index, number of lines, language -> text) of each run of tagged lines at one indentation."""
    found: list[tuple[int, int, dict[str, str]]] = []
    for i, line in enumerate(lines):
        tag = TAG.match(line)
        if tag is None or tag["language"] not in config.LANGUAGES:
            continue
        start, count, texts = found[-1] if found else (-1, 0, {})
        indent = TAG.match(lines[start])["indent"] if found else None  # type: ignore[index]
        if start + count == i and tag["indent"] == indent and tag["language"] not in texts:
            found[-1] = (start, count + 1, {**texts, tag["language"]: tag["text"]})
        else:
            found.append((i, 1, {tag["language"]: tag["text"]}))
    return found


def _pairs(lines: list[str]) -> list[tuple[int, int, dict[str, str]]]:
    return [group for group in _groups(lines) if group[2].keys() == config.LANGUAGES.keys()]


def _collapsed(text: str, line: Callable[[str, dict[str, str]], str]) -> str:
    lines = text.split("\n")
    for start, count, texts in reversed(_pairs(lines)):
        indent = TAG.match(lines[start])["indent"]  # type: ignore[index]
        lines[start : start + count] = [line(indent, texts)]
    return "\n".join(lines)


def shown(text: str, language: str) -> str:
    """An example's text as a page in `language` shows it: each pair made its language's comment."""
    return _collapsed(text, lambda indent, texts: f"{indent}# {texts[language]}".rstrip())


def neutral(text: str) -> str:
    """An example's text as the build executes it: each pair made an empty comment."""
    return _collapsed(text, lambda indent, texts: f"{indent}#")


# A line of a cell's frame in IPython's traceback: "      4 #", "----> 5 x.backward()"
CONTEXT_LINE = re.compile(r"^(?:-*>)?\s*(?P<number>\d+) [ \t]*#$")


def in_traceback(traceback: str, text: str, language: str) -> str:
    """The traceback of an example's cell, the empty comments its frames show made the language's."""
    shift, shown = 0, {}
    for start, count, texts in _pairs(text.split("\n")):
        shown[start - shift + 1] = texts[language]
        shift += count - 1
    lines, cell = traceback.split("\n"), False
    for i, line in enumerate(lines):
        if line.startswith(("Cell In[", "File ", "[")):
            cell = line.startswith("Cell In[")
        found = CONTEXT_LINE.match(line)
        if cell and found and int(found["number"]) in shown:
            lines[i] = f"{line} {shown[int(found['number'])]}".rstrip()
    return "\n".join(lines)


def file_line(text: str, line: int) -> int:
    """The line of an example's file that line `line` (1-based) of its shown text is."""
    shift = 0
    for start, count, _ in _pairs(text.split("\n")):
        if start - shift + 1 >= line:
            break
        shift += count - 1
    return line + shift


def fingerprinted(path: Path) -> bytes:
    """What a fingerprint reads of a file: an example without the words of its tagged comments."""
    data = path.read_bytes()
    if path.suffix != ".py" or path.parent != config.EXAMPLES:
        return data
    lines = data.decode("utf-8").split("\n")
    return "\n".join(TAG.sub(r"\g<indent># \g<language>:", line) for line in lines).encode("utf-8")


def problems(text: str) -> list[tuple[int, str]]:
    """(line, what) of each tagged comment without its other languages."""
    found = []
    for start, _, texts in _groups(text.split("\n")):
        if texts.keys() != config.LANGUAGES.keys():
            missing = " and ".join(f"# {lang}:" for lang in config.LANGUAGES if lang not in texts)
            tags = " and ".join(f"# {lang}:" for lang in texts)
            where = "beside it (the line above or below, at the same indentation)"
            found.append((start + 1, f"{tags} without {missing} {where}"))
    return found
