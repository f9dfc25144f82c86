"""`python -m execbook check`: the sources read as an author wrote them, executing nothing, in seconds.

Every build runs it first (execbook.build.check_sources); Sphinx's mirror warning comes from it too
(execbook.sphinxext.bilingual). Each problem is one line naming the file and line the author wrote,
what is wrong and what to do:

    docs/es/breaks/25-inplace-safe.md:120: the ``` fence opened here is closed only at line 131, after
    another block opens at line 127 → close it before line 127

It checks that fences close (by their own fence), that code cells only `:load:` declared examples
whose shown code fits a phone (SHOWN_LINES, SHOWN_COLUMNS; included source too), that the language
trees mirror each other (pages, labels, headings, figures, cells, glossary entries), and that
`{term}`, `{ref}`/`{numref}` and `{doc}` targets exist in the page's tree.
"""

import posixpath
import re
import sys
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import cases, comments, config

FRONT_MATTER = """---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
---
"""  # what makes a Markdown page one that executes (MyST-NB)
SHOWN_LINES = 30  # a cell a reader sees whole on a phone: a screen or two
SHOWN_COLUMNS = 80  # a line a phone's code box shows without scrolling sideways
HIDDEN = {"hide-input", "remove-input", "remove-cell"}  # tags that keep a cell's code out of sight
PAGE_SUFFIXES = (".md", ".ipynb")
GLOSSARY = "glossary"  # the page whose terms pair up across languages, entry by entry

FENCE = re.compile(r"^(?P<indent> {0,3})(?P<marker>`{3,}|~{3,}|:{3,})(?P<info>.*)$")
DIRECTIVE = re.compile(r"^\{(?P<name>[^}\s]+)\}\s*(?P<argument>.*)$")
OPTION = re.compile(r"^\s*:(?P<name>[\w-]+):(?P<value>.*)$")
LABEL_LINE = re.compile(r"^\s*\((?P<label>[^()\s]+)\)=\s*$")
HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<title>.*?)\s*#*\s*$")
# Directives whose content is Markdown (read for headings, labels, roles), any other fenced
# block (code-cell, literalinclude, toctree, glue:, plain ```python ...) is code or machinery.
PROSE_DIRECTIVES = {
    "admonition",
    "attention",
    "caution",
    "danger",
    "dropdown",
    "error",
    "figure",
    "glossary",
    "glue:figure",
    "hint",
    "important",
    "margin",
    "note",
    "seealso",
    "sidebar",
    "tab",
    "tab-item",
    "tab-set",
    "tabs",
    "tip",
    "topic",
    "warning",
}
# Of those, the ones whose argument (the rest of the opening line) is a title the reader reads.
TITLED_DIRECTIVES = PROSE_DIRECTIVES - {"figure", "glossary", "glue:figure", "tab-set", "tabs"}
FIGURES = {"figure", "glue:figure", "image"}
FIGURE_LINE = re.compile(r"^\s*(?:`{3,}|:{3,})\{(?:glue:figure|figure|image)\}")
# A role ({name}`content`) or an inline code span, read left to right as Markdown does.
SPAN = re.compile(r"(?:\{(?P<role>[\w:.-]+)\})?(?P<ticks>`+)(?P<content>.+?)(?<!`)(?P=ticks)(?!`)", re.S)
EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
SPHINX_LABELS = {"genindex", "modindex", "py-modindex", "search"}  # the labels Sphinx defines itself
UNNUMBERED = {"lines", "prepend", "append", "lineno-start", "diff"}  # literalinclude options that renumber
SAME_SECTIONS = "give both languages the same sections, in the same order"


@dataclass(frozen=True, order=True)
class Problem:
    file: str  # as the author wrote it: docs/es/..., examples/...
    line: int
    what: str
    todo: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.what} → {self.todo}"


@dataclass
class Block:
    """A fenced block: a code block, a cell or a directive (lines are 1-based)."""

    opening: int
    marker: str
    info: str
    closing: int | None  # None: never closed
    options: dict[str, tuple[int, str]] = field(default_factory=dict)  # name -> (line, value)
    body: list[tuple[int, str]] = field(default_factory=list)  # the lines after the options
    early: int | None = None  # a line inside it where another block opens: closed by a later fence

    @property
    def directive(self) -> str | None:
        found = DIRECTIVE.match(self.info.strip())
        return found["name"] if found else None

    @property
    def tags(self) -> set[str]:
        value = self.options.get("tags", (0, ""))[1]
        return {t.strip().strip("'\"") for t in value.strip().strip("[]").split(",") if t.strip()}


@dataclass
class Source:
    """One page as its author wrote it: its fenced blocks (nested ones too), and outside code its
    headings (top level only: sections) and labels."""

    path: Path
    shown: str
    blocks: list[Block] = field(default_factory=list)
    headings: list[tuple[int, int, str]] = field(default_factory=list)  # (line, level, title)
    labels: list[tuple[int, str]] = field(default_factory=list)  # (line, label): (label)= lines, :name:
    front: int = 0  # lines of front matter

    @property
    def cells(self) -> list[Block]:
        return [b for b in self.blocks if b.directive == "code-cell"]

    @property
    def figures(self) -> list[Block]:
        return [b for b in self.blocks if b.directive in FIGURES]

    def problem(self, line: int, what: str, todo: str) -> Problem:
        return Problem(self.shown, line, what, todo)


def _closing(lines: list[str], start: int, marker: str) -> tuple[int | None, int | None]:
    """(index of the fence that closes a block opened at lines[start - 1], index of the first line
    inside it where another block of the same fence opens), None where there is none."""
    early = None
    for i in range(start, len(lines)):
        fence = FENCE.match(lines[i])
        if not fence or fence["marker"][0] != marker[0] or len(fence["marker"]) < len(marker):
            continue
        if not fence["info"].strip():
            return i, early
        if early is None and fence["info"].strip().startswith("{"):
            early = i
    return None, early


def _scan(lines: list[str], first: int, top: bool, source: Source) -> None:
    """Read lines (lines[0] is line `first` of the file) into source."""
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence and not (fence["marker"][0] == "`" and "`" in fence["info"]):
            closing, early = _closing(lines, i + 1, fence["marker"])
            end = len(lines) if closing is None else closing
            block = Block(
                first + i,
                fence["marker"],
                fence["info"].strip(),
                None if closing is None else first + closing,
                early=None if early is None else first + early,
            )
            inner = lines[i + 1 : end]
            j = 0
            if block.directive and inner and inner[0].strip() == "---":  # options as YAML
                k = next((k for k in range(1, len(inner)) if inner[k].strip() == "---"), None)
                if k is not None:
                    for n in range(1, k):
                        key, _, value = inner[n].partition(":")
                        block.options[key.strip()] = (first + i + 1 + n, value.strip())
                    j = k + 1
            while block.directive and j < len(inner) and (option := OPTION.match(inner[j])):
                block.options[option["name"]] = (first + i + 1 + j, option["value"].strip())
                j += 1
            block.body = [(first + i + 1 + n, inner[n]) for n in range(j, len(inner))]
            source.blocks.append(block)
            if "name" in block.options:
                source.labels.append(block.options["name"])
            if block.directive in PROSE_DIRECTIVES and block.body:
                _scan([text for _, text in block.body], block.body[0][0], False, source)
            i = end + 1
            continue
        if label := LABEL_LINE.match(lines[i]):
            source.labels.append((first + i, label["label"]))
        elif top and (heading := HEADING.match(lines[i])):
            source.headings.append((first + i, len(heading["level"]), heading["title"]))
        i += 1


def shown_path(path: Path) -> str:
    """A file's path as the author writes it: from the repository's root (docs/es/<page>.md)."""
    path = Path(path).resolve()
    for root in (config.REPO, config.DOCS.parent):
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    return path.as_posix()


def read(path: Path, shown: str | None = None) -> Source:
    return parse(Path(path).read_text("utf-8"), Path(path), shown or shown_path(path))


def parse(text: str, path: Path = Path("page.md"), shown: str = "page.md") -> Source:
    lines = text.split("\n")
    first = 0
    if lines and lines[0].strip() == "---":  # front matter
        first = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
    source = Source(path, shown, front=first)
    _scan(lines[first:], first + 1, True, source)
    return source


def page_sources(tree: str | Path) -> dict[str, Path]:
    """page name -> source file of every page of one language's tree."""
    tree = Path(tree)
    return {
        p.relative_to(tree).with_suffix("").as_posix(): p
        for p in sorted(tree.rglob("*"))
        if p.suffix in PAGE_SUFFIXES and not {config.BUILD.name, ".ipynb_checkpoints"} & set(p.relative_to(tree).parts)
    }


def tree_sources(docs: Path, language: str) -> dict[str, Source]:
    """page name -> Source of one language's Markdown pages, named from the docs folder's parent
    (docs/es/<page>.md)."""
    return {
        page: read(path, path.relative_to(docs.parent).as_posix())
        for page, path in page_sources(docs / language).items()
        if path.suffix == ".md"
    }


# --- fences and cells


def fence_problems(source: Source) -> Iterator[Problem]:
    for block in source.blocks:
        what = f"the {block.marker} fence opened here ({block.info or 'a code block'})"
        if block.early is not None:
            closed = f"is closed only at line {block.closing}" if block.closing else "is never closed"
            yield source.problem(
                block.opening,
                f"{what} {closed}, after another block opens at line {block.early}",
                f"close it with a {block.marker} line before line {block.early}",
            )
        elif block.closing is None:
            yield source.problem(
                block.opening,
                f"{what} is never closed: the rest of the page is inside it",
                f"add a {block.marker} line where the block ends",
            )


def example_of(source: Source, block: Block) -> Path:
    return (source.path.parent / block.options["load"][1]).resolve()


def cell_problems(source: Source) -> Iterator[Problem]:
    for cell in source.cells:
        if cell.early is not None or cell.closing is None:
            continue  # fence_problems names it
        if "load" not in cell.options:
            yield source.problem(
                cell.opening,
                "a code cell written on the page (a page holds no code of its own)",
                "put the code in examples/<name>.py, give it an entry in "
                "examples/cases.toml and load it: :load: <path to examples>/<name>.py",
            )
            continue
        line, target = cell.options["load"]
        path = example_of(source, cell)
        body = [n for n, text in cell.body if text.strip()]
        if body:
            yield source.problem(
                body[0],
                f"the cell that loads {target} (line {cell.opening}) has a body of its own, which MyST-NB "
                "replaces with the file",
                "a :load: cell holds only its options: close the cell right after them",
            )
        if path.parent != config.EXAMPLES.resolve() or path.suffix != ".py":
            yield source.problem(
                line, f"the cell loads {target}, not a file of examples/", "pages load examples/<name>.py files"
            )
        elif not path.is_file():
            yield source.problem(
                line,
                f"the cell loads {target}, which does not exist",
                f"write examples/{path.name}, or correct the path",
            )
        elif path.stem not in cases.manifest():
            yield source.problem(
                line,
                f"examples/cases.toml has no entry [{path.stem}]",
                f'declare what examples/{path.name} does: [{path.stem}] expect = "completes" '
                '(or "raises", with error and match)',
            )
        elif "raises-exception" in cell.tags:
            yield source.problem(
                cell.options["tags"][0],
                "the cell tags itself raises-exception",
                f"remove the tag: examples/cases.toml [{path.stem}] says what it does",
            )
        elif not HIDDEN & cell.tags and (count := len(cases.split(path)[0].rstrip("\n").split("\n"))) > SHOWN_LINES:
            yield source.problem(
                line,
                f"the cell shows {count} lines of examples/{path.name} (at most {SHOWN_LINES})",
                "split the example into two cells with a sentence between, move machinery below its "
                "hidden-checks line, or collapse it (:tags: [hide-input])",
            )


def _too_wide(numbered: Iterable[tuple[int, str]], file: str, what: str, todo: str) -> Iterator[Problem]:
    for number, line in numbered:
        if len(line) > SHOWN_COLUMNS:
            yield Problem(file, number, f"{what} is {len(line)} columns wide (at most {SHOWN_COLUMNS})", todo)


def width_problems(files: Collection[Path]) -> list[Problem]:
    """Shown code wider than SHOWN_COLUMNS: the part of each example above its hidden checks."""
    return [
        problem
        for path in sorted(set(files))
        for problem in _too_wide(
            enumerate(cases.split(path)[0].split("\n"), 1),
            shown_path(path),
            "a line the page shows",
            "break it, or shorten its names",
        )
    ]


def include_problems(source: Source) -> Iterator[Problem]:
    """Included source too must fit a code box: the lines a literalinclude shows, read by Sphinx's
    own reader (pyobject, start-after, end-before, dedent...)."""
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


# --- prose: the roles


def blank_machinery(text: str) -> str:
    """The page's text with front matter, labels, comments, code blocks and directive options blanked
    out (line for line, so line numbers survive); directive arguments (titles) and :alt: texts stay."""
    source = parse(text)
    out = ["" if i < source.front else line for i, line in enumerate(text.split("\n"))]
    for block in source.blocks:
        prose = block.directive in PROSE_DIRECTIVES
        start = block.body[0][0] if prose and block.body else (block.closing or len(out) + 1)
        out[block.opening - 1 : start - 1] = [""] * (start - block.opening)  # the fence and options
        if block.closing:
            out[block.closing - 1] = ""
        if block.directive in TITLED_DIRECTIVES:
            out[block.opening - 1] = DIRECTIVE.match(block.info)["argument"]  # type: ignore[index]
        if prose and "alt" in block.options:
            out[block.options["alt"][0] - 1] = block.options["alt"][1]
    return "\n".join("" if LABEL_LINE.match(line) or line.lstrip().startswith("%") else line for line in out)


def normalize(term: str) -> str:
    """How Sphinx matches a term or a label: case-insensitively, whitespace collapsed."""
    return " ".join(term.split()).lower()


def citations(text: str, roles: Collection[str]) -> Iterator[tuple[int, str, str]]:
    """(line number, role, target) of every role of those kinds in the page's prose."""
    text = blank_machinery(text)
    for span in SPAN.finditer(text):
        if span["role"] in roles:
            explicit = EXPLICIT.match(span["content"])
            target = explicit["target"] if explicit else span["content"]
            yield text.count("\n", 0, span.start()) + 1, span["role"], target


def term_citations(text: str) -> list[tuple[int, str]]:
    """[(line number, term name)] of every {term} role in the page's prose."""
    return [(line, normalize(target)) for line, _, target in citations(text, {"term"})]


def glossary_entries(source: Source) -> list[list[tuple[int, str]]]:
    """The terms of each entry of a page's {glossary} block, with their lines, in source order (a
    term line starts at the left margin; its definition is indented)."""
    entries: list[list[tuple[int, str]]] = []
    for block in (b for b in source.blocks if b.directive == "glossary"):
        defined = True
        for number, line in block.body:
            if line and not line.startswith((" ", "\t")):
                if defined:
                    entries.append([])
                entries[-1].append((number, line.strip()))
                defined = False
            elif line.strip():
                defined = True
    return entries


def glossary_terms(text: str) -> list[str]:
    """The terms a page's {glossary} block defines (alias lines included), normalized."""
    return [normalize(term) for entry in glossary_entries(parse(text)) for _, term in entry]


def role_problems(source: Source, terms: set[str], labels: set[str], docs: set[str], tree: Path) -> Iterator[Problem]:
    here = source.path.resolve().parent.relative_to(tree.resolve()).as_posix()
    for line, role, target in citations(source.path.read_text("utf-8"), {"term", "ref", "numref", "doc"}):
        if role == "term" and normalize(target) not in terms:
            yield source.problem(
                line,
                f"{{term}}`{target}` is not a term of this language's glossary",
                f"use a term of docs/{tree.name}/{GLOSSARY}.md, or add it there (in both languages)",
            )
        elif role in ("ref", "numref") and normalize(target) not in labels:
            close = sorted(label for label in labels if label.startswith(normalize(target)[:12]))[:3]
            yield source.problem(
                line,
                f"{{{role}}}`{target}`: no label {target!r} in docs/{tree.name}",
                "use a label written as (label)= above a heading"
                + (f" (did you mean {', '.join(close)}?)" if close else ""),
            )
        elif role == "doc":
            name = target.lstrip("/") if target.startswith("/") else posixpath.join(here, target).removesuffix(".md")
            name = posixpath.normpath(name).removeprefix("./")
            if name not in docs:
                yield source.problem(
                    line, f"{{doc}}`{target}`: no page {name} in docs/{tree.name}", "correct the page name"
                )


# --- the mirror


def mirror_problems(
    docs: str | Path,
    languages: Collection[str],
    sources: dict[str, dict[str, Source]] | None = None,
    skip: Collection[str] = (),
) -> list[Problem]:
    """Where the language trees differ: pages, labels, headings, figures, code cells, glossary entries
    (pages in skip are compared only by their existence: their fences are broken)."""
    docs = Path(docs)
    sources = sources or {lang: tree_sources(docs, lang) for lang in languages}
    first, *others = languages
    found: list[Problem] = []
    for lang in languages:
        for other in (o for o in languages if o != lang):
            for page in sorted(set(sources[lang]) - set(sources[other])):
                found.append(
                    sources[lang][page].problem(
                        1,
                        f"a page with no counterpart in docs/{other}",
                        f"write docs/{other}/{page}.md (same labels, sections, code cells), or remove this one",
                    )
                )
            theirs = {label: page for page, source in sources[other].items() for _, label in source.labels}
            for page, source in sources[lang].items():
                if page not in sources[other] or page in skip:
                    continue
                for line, label in source.labels:
                    if label not in theirs:
                        what = f"label {label!r} is missing in docs/{other}"
                        found.append(
                            source.problem(line, what, f"add ({label})= at the same place of docs/{other}/{page}.md")
                        )
                    elif theirs[label] != page:
                        what = f"label {label!r} is on docs/{other}/{theirs[label]}.md in {other}"
                        found.append(source.problem(line, what, "keep a label on the same page in every language"))
    for page in sorted(set.intersection(*(set(sources[lang]) for lang in languages)) - set(skip)):
        for lang in others:
            found += _outline_problems(sources[first][page], sources[lang][page])
    if all(GLOSSARY in sources[lang] for lang in languages):
        found += glossary_problems({lang: sources[lang][GLOSSARY] for lang in languages})
    return sorted(set(found))


def _unmatched(mine: Source, theirs: Source, items: Callable[[Source], list[Any]]) -> tuple[Source, Source, Any]:
    """(the language with more of these items, the other, its first item without a counterpart)."""
    longer, shorter = (mine, theirs) if len(items(mine)) > len(items(theirs)) else (theirs, mine)
    return longer, shorter, items(longer)[len(items(shorter))]


def _outline_problems(mine: Source, theirs: Source) -> list[Problem]:
    found = []
    levels = [(a, b) for a, b in zip(mine.headings, theirs.headings, strict=False) if a[1] != b[1]]
    if levels:
        (a_line, a_level, a_title), (b_line, b_level, b_title) = levels[0]
        found.append(
            theirs.problem(
                b_line,
                f"heading {'#' * b_level} {b_title} is level {b_level}; its "
                f"counterpart {mine.shown}:{a_line} ({'#' * a_level} {a_title}) is level {a_level}",
                SAME_SECTIONS,
            )
        )
    elif len(mine.headings) != len(theirs.headings):
        longer, shorter, (line, level, title) = _unmatched(mine, theirs, lambda source: source.headings)
        found.append(
            longer.problem(
                line,
                f"heading {'#' * level} {title} has no counterpart in {shorter.shown} "
                f"({len(longer.headings)} headings here, {len(shorter.headings)} there)",
                SAME_SECTIONS,
            )
        )
    if len(mine.figures) != len(theirs.figures):
        longer, shorter, block = _unmatched(mine, theirs, lambda source: source.figures)
        found.append(
            longer.problem(
                block.opening,
                f"a figure with no counterpart in {shorter.shown} "
                f"({len(longer.figures)} figures here, {len(shorter.figures)} there)",
                "show the same figures in both languages",
            )
        )
    cells = [[(b.options.get("load", (0, ""))[1] or "inline", sorted(b.tags)) for b in s.cells] for s in (mine, theirs)]
    differ = [(a, b, i) for i, (a, b) in enumerate(zip(*cells, strict=False)) if a != b]
    if differ:
        (a_load, a_tags), (b_load, b_tags), i = differ[0]
        found.append(
            theirs.problem(
                theirs.cells[i].opening,
                f"this code cell ({b_load}, tags {b_tags}) differs from its counterpart "
                f"{mine.shown}:{mine.cells[i].opening} ({a_load}, tags {a_tags})",
                "keep the code cells of both languages identical (one execution serves both)",
            )
        )
    elif len(mine.cells) != len(theirs.cells):
        longer, shorter, block = _unmatched(mine, theirs, lambda source: source.cells)
        found.append(
            longer.problem(
                block.opening,
                f"a code cell with no counterpart in {shorter.shown}",
                "keep the code cells of both languages identical",
            )
        )
    return found


def glossary_problems(glossaries: dict[str, Source]) -> list[Problem]:
    """Where the glossaries do not pair up entry by entry (same order, same number of terms)."""
    entries = {lang: glossary_entries(source) for lang, source in glossaries.items()}
    first, *others = glossaries
    found = []
    for lang in others:
        for mine, theirs in zip(entries[first], entries[lang], strict=False):
            if len(mine) != len(theirs):
                found.append(
                    glossaries[lang].problem(
                        theirs[0][0],
                        f"glossary entry {' / '.join(t for _, t in theirs)} has "
                        f"{len(theirs)} term(s), its counterpart {glossaries[first].shown}:{mine[0][0]} "
                        f"({' / '.join(t for _, t in mine)}) {len(mine)}",
                        "the entries pair up in source order, term by term: give both the same number of terms",
                    )
                )
        if len(entries[first]) != len(entries[lang]):
            longer = lang if len(entries[lang]) > len(entries[first]) else first
            extra = entries[longer][min(len(entries[first]), len(entries[lang]))]
            found.append(
                glossaries[longer].problem(
                    extra[0][0],
                    f"{len(entries[first])} glossary entries in "
                    f"{first}, {len(entries[lang])} in {lang}: this one has no counterpart",
                    "add its counterpart at the same position of the other glossary",
                )
            )
    return found


# --- all of it


def problems(docs: str | Path = config.DOCS, languages: Collection[str] = tuple(config.LANGUAGES)) -> list[Problem]:
    """Everything wrong with the sources, in file and line order (empty when the book may build)."""
    docs = Path(docs)
    try:
        cases.manifest.cache_clear()
        cases.manifest()
    except cases.ManifestError as exc:
        return [Problem("examples/cases.toml", 1, str(exc), "fix that entry (execbook/cases.py lists the keys)")]
    sources = {lang: tree_sources(docs, lang) for lang in languages}
    found: list[Problem] = []
    broken: set[str] = set()
    loaded: set[Path] = set()
    for lang in languages:
        labels = {normalize(label) for source in sources[lang].values() for _, label in source.labels} | SPHINX_LABELS
        glossary = sources[lang].get(GLOSSARY)
        terms = {normalize(t) for entry in glossary_entries(glossary) for _, t in entry} if glossary else set()
        for page, source in sources[lang].items():
            fences = list(fence_problems(source))
            broken |= {page} if fences else set()
            found += [*fences, *cell_problems(source), *include_problems(source)]
            found += role_problems(source, terms, labels, set(sources[lang]), docs / lang)
            examples = {example_of(source, c) for c in source.cells if "load" in c.options}
            loaded |= {e for e in examples if e.is_file() and e.parent == config.EXAMPLES.resolve()}
    found += width_problems(loaded)
    for example in sorted(loaded):
        shown = f"examples/{example.name}"
        todo = f"give the comment its line in every language ({', '.join(config.LANGUAGES)}), or untag it"
        found += [Problem(shown, line, what, todo) for line, what in comments.problems(example.read_text("utf-8"))]
    found += mirror_problems(docs, list(languages), sources, skip=broken)
    return sorted(set(found))


def main(arguments: list[str]) -> int:
    if arguments:
        print("usage: python -m execbook check   (reads the sources; executes nothing)", file=sys.stderr)
        return 2
    start = time.perf_counter()
    found = problems()
    seconds = f"{time.perf_counter() - start:.1f} s"
    if found:
        print(*found, sep="\n")
        print(f"execbook: check: {len(found)} problem(s) in the sources ({seconds})", file=sys.stderr)
        return 1
    pages = sum(len(page_sources(config.DOCS / lang)) for lang in config.LANGUAGES)
    print(f"execbook: check: ok, {pages} pages in {len(config.LANGUAGES)} languages ({seconds})")
    return 0
