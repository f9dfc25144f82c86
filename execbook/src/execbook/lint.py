"""`python -m execbook check`: the sources as an author wrote them, executing nothing, in seconds (every
build runs it first). Each problem is one line: file:line: what is wrong → what to do. CONTRIBUTING.md
("How the book builds", step 1) lists what it checks; Sphinx's `-n -W` checks what is left."""

import ast
import difflib
import os
import posixpath
import sys
import time
from collections.abc import Collection, Iterable, Iterator
from functools import cache
from itertools import permutations
from pathlib import Path
from typing import Any

import yaml
from sphinx.util import docname_join
from sphinx.util.inventory import InventoryFile
from sphinx.util.nodes import split_explicit_title

from . import cases, comments, config, quotes
from .source import (
    GLOSSARY,
    HIDDEN,
    Problem,
    Source,
    example_of,
    glossary_entries,
    page_sources,
    shown_path,
    tree_sources,
    unreadable,
)

SHOWN_LINES = 30  # a cell a reader sees whole on a phone: a screen or two
SHOWN_COLUMNS = 80  # a line a phone's code box shows without scrolling sideways
UNNUMBERED = {"lines", "prepend", "append", "lineno-start", "diff"}  # literalinclude options that renumber
OUTLINE = {  # what pairs up, in order, between a page and its counterpart, and what to do where it does not
    "heading": "give both languages the same sections, in the same order",
    "figure": "show the same figures in both languages",
    "code cell": "keep the code cells of both languages identical (one execution serves both)",
    "glossary entry": "the entries pair up in source order, term by term: give both the same number of terms",
}
XREFS = {"ref": "label", "numref": "label", "doc": "page", "term": "term"}  # the role -> what it names


def fence_problems(source: Source) -> Iterator[Problem]:
    for block in (b for b in source.blocks if b.early is not None or b.closing is None):
        what = f"the {block.marker} fence opened here ({block.info or 'a code block'})"
        line = f"a {block.marker} line"
        if block.early is None:
            what = f"{what} is never closed: the rest of the page is inside it"
            todo = f"add {line} where the block ends"
        else:
            closed = f"is closed only at line {block.closing}" if block.closing else "is never closed"
            what = f"{what} {closed}, after another block opens at line {block.early}"
            todo = f"close it with {line} before line {block.early}"
        yield source.problem(block.opening, what, todo)


def front_matter_problems(source: Source) -> Iterator[Problem]:
    """Front matter that YAML cannot read, at its line."""
    for token in source.tokens[:1]:
        if token.type == "front_matter" and token.map:
            try:
                yaml.safe_load(token.content)
            except yaml.YAMLError as exc:
                first, problem = token.map[0] + 2, getattr(exc, "problem", None) or exc  # first: the line after ---
                start, context = getattr(exc, "context_mark", None), getattr(exc, "context", None) or ""
                # what was left open (a key without its colon, a quote, a [ list) is the fault, where it opened
                opened = start and ("scanning" in context or "flow" in context)
                mark = start if opened else getattr(exc, "problem_mark", None)
                what = f"its front matter is not YAML: {problem}"
                if start and context:
                    what += f" ({context}" + ("" if opened else f" from line {first + start.line}") + ")"
                yield source.problem(first + (mark.line if mark else 0), what, "correct that line")
        elif token.type == "hr" and token.map == [0, 1] and token.markup.startswith("---"):
            yield source.problem(1, "the front matter opened here is never closed", "close it with a --- line")


def cell_problems(source: Source) -> Iterator[Problem]:
    for cell in source.cells:
        if cell.early is not None or cell.closing is None:
            continue  # fence_problems names it
        if "load" not in cell.options:
            stem = source.path.stem.replace("-", "_")
            load = os.path.relpath(config.EXAMPLES / f"{stem}.py", source.path.parent)
            todo = f"put the code in examples/{stem}.py, give it an entry [{stem}] in examples/cases.toml and load it"
            what = "a code cell written on the page (a page holds no code of its own)"
            yield source.problem(cell.opening, what, f"{todo}: :load: {load}")
            continue
        (line, target), path = cell.options["load"], example_of(source, cell)
        if body := [n for n, text in cell.body if text.strip()]:
            what = f"the cell that loads {target} (line {cell.opening}) has a body of its own, which MyST-NB replaces"
            todo = "a :load: cell holds only its options: close the cell right after them"
            yield source.problem(body[0], f"{what} with the file", todo)
        found: tuple[int, str, str] | None = None
        if path.parent != config.EXAMPLES.resolve() or path.suffix != ".py":
            load = os.path.relpath(config.EXAMPLES / f"{path.stem}.py", source.path.parent)
            todo = f"pages load files of examples/: move it to examples/{path.stem}.py and load that, :load: {load}"
            found = line, f"the cell loads {target}, not a file of examples/", todo
        elif not path.is_file():
            todo = f"write examples/{path.name}, or correct the path"
            found = line, f"the cell loads {target}, which does not exist", todo
        elif path.stem not in cases.manifest():
            todo = f'declare what examples/{path.name} does: [{path.stem}] expect = "completes" (or "raises", with'
            found = line, f"examples/cases.toml has no entry [{path.stem}]", f"{todo} error and match)"
        elif broken := unreadable(path, python=True):
            yield broken
        elif "raises-exception" in cell.tags:
            todo = f"remove the tag: examples/cases.toml [{path.stem}] says what it does"
            found = cell.options["tags"][0], "the cell tags itself raises-exception", todo
        elif not HIDDEN & cell.tags and (count := len(cases.split(path)[0].rstrip("\n").split("\n"))) > SHOWN_LINES:
            what = f"the cell shows {count} lines of examples/{path.name} (at most {SHOWN_LINES})"
            todo = "split the example into two cells with a sentence between, move machinery below its hidden-checks"
            found = line, what, f"{todo} line, or collapse it (:tags: [hide-input])"
        if found:
            yield source.problem(*found)


def _too_wide(numbered: Iterable[tuple[int, str]], file: str, what: str, todo: str) -> Iterator[Problem]:
    for number, line in numbered:
        if len(line) > SHOWN_COLUMNS:
            yield Problem(file, number, f"{what} is {len(line)} columns wide (at most {SHOWN_COLUMNS})", todo)


def width_problems(files: Collection[Path]) -> list[Problem]:
    """Shown code wider than SHOWN_COLUMNS: the part of each example above its hidden checks."""
    shown = {shown_path(path): enumerate(cases.split(path)[0].split("\n"), 1) for path in sorted(set(files))}
    what, todo = "a line the page shows", "break it, or shorten its names"
    return [problem for path, lines in shown.items() for problem in _too_wide(lines, path, what, todo)]


def include_problems(source: Source) -> Iterator[Problem]:
    """The lines a literalinclude shows (Sphinx's own reader) too must fit a code box."""
    from sphinx.config import Config
    from sphinx.directives.code import LiteralIncludeReader

    for block in source.blocks:
        if block.directive != "literalinclude":
            continue
        path = (source.path.parent / block.info.split("}", 1)[1].strip()).resolve()
        if not path.is_file():
            yield source.problem(block.opening, f"it includes {path.name}, which does not exist", "correct the path")
            continue
        options: dict[str, Any] = {name: value for name, (_, value) in block.options.items()}
        if UNNUMBERED & set(options):
            continue  # the lines shown are not a run of the file's: their numbers are unknown
        if "dedent" in options:
            options["dedent"] = int(options["dedent"]) if options["dedent"] else None
        try:
            reader = LiteralIncludeReader(path, {**options, "lineno-match": True}, Config())
            shown = reader.read()[0].splitlines()
        except ValueError as exc:  # a :pyobject: that is not there, options that exclude each other
            yield source.problem(block.opening, f"Sphinx cannot include it: {exc}", "correct its options")
            continue
        what = f"a line {source.shown}:{block.opening} includes"
        yield from _too_wide(enumerate(shown, reader.lineno_start), shown_path(path), what, "break it")


def xref_problems(docs: Path, language: str, sources: dict[str, Source]) -> Iterator[Problem]:
    """Each {ref}, {numref}, {doc} or {term} naming nothing of its language's tree, with the closest there is."""
    known = {
        "label": [label for s in sources.values() for _, label in s.labels] + ["genindex", "modindex", "search"],
        "page": list(page_sources(docs / language)),
        "term": [term for s in sources.values() for entry in glossary_entries(s) for _, term in entry],
    }
    for page, source in sources.items():
        for line, role, content, _ in (r for r in source.roles if r[1] in XREFS):
            kind, target = XREFS[role], split_explicit_title(content)[2]
            names = {name if kind == "page" else " ".join(name.lower().split()): name for name in known[kind]}
            target = docname_join(page, target) if kind == "page" else " ".join(target.lower().split())
            if target not in names and ":" not in target:  # "name:label": intersphinx resolves it
                close = [f"did you mean `{names[c]}`?" for c in difflib.get_close_matches(target, names, n=1)]
                what = f"{{{role}}}`{content}` names no {kind} of the {language} pages"
                yield source.problem(line, what, (close or [f"correct it, or write that {kind}"])[0])


@cache
def inventory(path: Path) -> dict[str, dict[str, Any]]:
    """What another book's objects.inv names (Sphinx's reading): "std:label" -> label -> its place, "std:doc"..."""
    with path.open("rb") as stream:
        return dict(InventoryFile.load(stream, "", posixpath.join))


def intersphinx_problems(language: str, sources: dict[str, Source]) -> Iterator[Problem]:
    """Each {ref}`book:label` or {doc}`book:page` that the other book's local inventory lacks."""
    kinds = {"ref": "std:label", "doc": "std:doc"}
    for source in sources.values():
        for line, role, content, _ in (r for r in source.roles if r[1] in kinds):
            name, _, target = split_explicit_title(content)[2].partition(":")
            book = config.INTERSPHINX.get(name)
            path = book and book.inventory and config.REPO / book.inventory.format(language=language)
            if not target or not path or not path.is_file():
                continue
            known = inventory(path).get(kinds[role], {})
            target = " ".join(target.lower().split()) if role == "ref" else target
            if target not in known:
                close = [f"did you mean `{name}:{c}`?" for c in difflib.get_close_matches(target, known, n=1)]
                what = f"{{{role}}}`{content}` names no {XREFS[role]} {target!r} in {path.relative_to(config.REPO)}"
                yield source.problem(line, what, (close or [f"correct it, or write that {XREFS[role]} in {name}"])[0])


def mirror_problems(languages: Collection[str], sources: dict[str, dict[str, Source]], skip: set[str]) -> list[Problem]:
    """Where the language trees differ (pages in skip, whose fences are broken, only by their existence)."""
    found: list[Problem] = []
    for lang, other in permutations(languages, 2):
        for page in sorted(set(sources[lang]) - set(sources[other])):
            todo = f"write docs/{other}/{page}.md (same labels, sections, code cells), or remove this one"
            found.append(sources[lang][page].problem(1, f"a page with no counterpart in docs/{other}", todo))
        theirs = {label: page for page, source in sources[other].items() for _, label in source.labels}
        for page, source in sources[lang].items():
            for line, label in source.labels if page in sources[other] and page not in skip else []:
                if label not in theirs:
                    todo = f"add ({label})= at the same place of docs/{other}/{page}.md"
                    found.append(source.problem(line, f"label {label!r} is missing in docs/{other}", todo))
                elif theirs[label] != page:
                    what = f"label {label!r} is on docs/{other}/{theirs[label]}.md in {other}"
                    found.append(source.problem(line, what, "keep a label on the same page in every language"))
    first, *others = languages
    for kind, todo in OUTLINE.items():
        for page in [GLOSSARY] if kind == "glossary entry" else sorted(set(sources[first]) - set(skip)):
            for lang in (lang for lang in others if page in sources[lang] and page in sources[first]):
                found += _pairs(kind, sources[first][page], sources[lang][page], todo)
    return sorted(set(found))


def _items(source: Source, kind: str) -> list[tuple[int, str, Any]]:
    """(line, text, what must match its counterpart) of each item of a kind, in page order."""
    if kind == "heading":
        return [(line, f"{'#' * level} {title}", level) for line, level, title in source.headings]
    if kind == "figure":
        return [(block.opening, block.info, None) for block in source.figures]
    if kind == "glossary entry":
        return [(entry[0][0], " / ".join(t for _, t in entry), len(entry)) for entry in glossary_entries(source)]
    cells = [(b.opening, b.options.get("load", (0, "inline"))[1], sorted(b.tags)) for b in source.cells]
    return [(line, f"{load}, tags {tags}", (load, tags)) for line, load, tags in cells]


def _pairs(kind: str, mine: Source, theirs: Source, todo: str) -> list[Problem]:
    """Where two languages' items of a kind differ: the first pair (each, in a glossary), else the first extra."""
    a, b = _items(mine, kind), _items(theirs, kind)
    every = kind == "glossary entry"
    differ = [(x, y) for x, y in zip(a, b, strict=False) if x[2] != y[2]][: None if every else 1]
    found = [
        theirs.problem(y[0], f"{kind} {y[1]} does not match its counterpart {mine.shown}:{x[0]} ({x[1]})", todo)
        for x, y in differ
    ]
    if len(a) != len(b) and (every or not differ):
        (longer, extra), shorter = ((mine, a), theirs) if len(a) > len(b) else ((theirs, b), mine)
        line, text, _ = extra[min(len(a), len(b))]
        count = f"{len(extra)} here, {len(a) + len(b) - len(extra)} there"
        found.append(longer.problem(line, f"{kind} {text} has no counterpart in {shorter.shown} ({count})", todo))
    return found


def unread_glue(example: Path) -> list[Problem]:
    """Each number a hidden check glues (glue_number, glue_by_value) that no assert of it reads."""
    checks = ast.parse(cases.split(example)[1])
    asserted = {ast.unparse(n) for a in ast.walk(checks) if isinstance(a, ast.Assert) for n in ast.walk(a)}
    found = []
    for call in (c for c in ast.walk(checks) if isinstance(c, ast.Call) and len(c.args) > 1):
        name, (key, value) = ast.unparse(call.func).split(".")[-1], call.args[:2]
        if name in ("glue_number", "glue_by_value") and ast.unparse(value) not in asserted:
            said = "".join(f"; it is quoted at {s}" for s in quotes.quoting([getattr(key, "value", "")])[:1])
            what = f"{ast.unparse(key)} glues {ast.unparse(value)}, which no assert of the example reads"
            todo = "assert, on what it glues, what the sentences quoting it say (a median: half the values reach it)"
            found.append(Problem(f"examples/{example.name}", call.lineno, what + said, todo))
    return found


def problems(docs: str | Path | None = None, languages: Collection[str] | None = None) -> list[Problem]:
    """Everything wrong with the sources, in file and line order (empty when the book may build)."""
    docs, languages = Path(docs or config.DOCS), languages or tuple(config.LANGUAGES)
    if bad := unreadable(config.MANIFEST):
        return [bad]
    try:
        cases.manifest.cache_clear()
        cases.manifest()
    except cases.ManifestError as exc:
        todo = "fix that entry (execbook/src/execbook/cases.py lists the keys)"
        return [Problem("examples/cases.toml", 1, str(exc), todo)]
    sources = {lang: tree_sources(docs, lang) for lang in languages}
    found: list[Problem] = []
    broken: set[str] = set()
    loaded: set[Path] = set()
    for lang in languages:
        for page, source in sources[lang].items():
            fences = [*filter(None, [unreadable(source.path, source.shown)]), *fence_problems(source)]
            broken |= {page} if fences else set()
            found += [*fences, *front_matter_problems(source), *cell_problems(source), *include_problems(source)]
            examples = {example_of(source, c) for c in source.cells if "load" in c.options}
            loaded |= {e for e in examples if e.is_file() and e.parent == config.EXAMPLES.resolve()}
        found += xref_problems(docs, lang, sources[lang])
        found += intersphinx_problems(lang, sources[lang])
    loaded = {example for example in loaded if unreadable(example, python=True) is None}
    found += width_problems(loaded)
    for example in sorted(loaded):
        shown = f"examples/{example.name}"
        todo = f"give the comment its line in every language ({', '.join(config.LANGUAGES)}), or untag it"
        found += [Problem(shown, line, what, todo) for line, what in comments.problems(example.read_text("utf-8"))]
        found += unread_glue(example)
    found += mirror_problems(languages, sources, broken)
    return sorted(set(found))


def main(given: object) -> int:  # no arguments
    start = time.perf_counter()
    found = problems()
    seconds = f"{time.perf_counter() - start:.1f} s"
    if found:
        print(*found, sep="\n")
        print(f"execbook: check: {len(found)} problem(s) in the sources ({seconds})", file=sys.stderr)
        return 1
    for note in quotes.flipped(config.MANIFEST):
        print(note, file=sys.stderr)
    pages = sum(len(page_sources(config.DOCS / lang)) for lang in config.LANGUAGES)
    print(f"execbook: check: ok, {pages} pages in {len(config.LANGUAGES)} languages ({seconds})")
    return 0
