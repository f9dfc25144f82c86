"""`python -m execbook check`: the sources read as an author wrote them, executing nothing, in seconds.

Every build runs it first (execbook.build.check_sources). Each problem is one line: the file and
line the author wrote, what is wrong, → what to do. It reads each page with myst-parser's own parser
(the tokens MyST builds the page from): fences close by their own fence; code cells only `:load:`
declared examples, whose shown code fits a phone (SHOWN_LINES, SHOWN_COLUMNS; included source too);
the language trees mirror each other (pages, labels, headings, figures, code cells, glossary
entries); a `{ref}`, `{numref}`, `{doc}` or `{term}` names a label, page or term of its language's
tree (Sphinx's `-n -W` still checks what is left: an unknown role). An example's Python compiles.
"""

import ast
import builtins
import difflib
import re
import subprocess
import sys
import time
import tomllib
from ast import PyCF_ALLOW_TOP_LEVEL_AWAIT
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import permutations
from pathlib import Path
from typing import Any

import yaml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.directives import is_option_line
from myst_parser.parsers.mdit import create_md_parser
from sphinx.util import docname_join
from sphinx.util.nodes import split_explicit_title

from . import cases, comments, config

MYST_EXTENSIONS = ["colon_fence", "dollarmath", "deflist", "substitution"]  # the book's (sphinxext.config)
MYST = MdParserConfig(enable_extensions=set(MYST_EXTENSIONS))
MARKDOWN = create_md_parser(MYST, RendererHTML)  # myst-parser's parser, as Sphinx and MyST-NB read a page
SHOWN_LINES = 30  # a cell a reader sees whole on a phone: a screen or two
SHOWN_COLUMNS = 80  # a line a phone's code box shows without scrolling sideways
HIDDEN = {"hide-input", "remove-input", "remove-cell"}  # tags that keep a cell's code out of sight
PAGE_SUFFIXES = (".md", ".ipynb")
GLOSSARY = "glossary"  # the page whose terms pair up across languages, entry by entry
# Directives whose content is Markdown (read for headings, labels, blocks); any other fenced block
# (code-cell, literalinclude, toctree, glue:, plain ```python ...) is code or machinery.
PROSE_DIRECTIVES = {
    *("admonition", "attention", "caution", "danger", "error", "hint", "important", "note", "seealso"),
    *("tip", "warning", "dropdown", "margin", "sidebar", "topic", "tab", "tab-item", "tab-set", "tabs"),
    *("figure", "glue:figure", "glossary"),
}
FIGURES = {"figure", "glue:figure", "image"}
UNNUMBERED = {"lines", "prepend", "append", "lineno-start", "diff"}  # literalinclude options that renumber
OUTLINE = {  # what pairs up, in order, between a page and its counterpart, and what to do where it does not
    "heading": "give both languages the same sections, in the same order",
    "figure": "show the same figures in both languages",
    "code cell": "keep the code cells of both languages identical (one execution serves both)",
    "glossary entry": "the entries pair up in source order, term by term: give both the same number of terms",
}


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
    """A fenced block (a code block, a cell or a directive) from its myst-parser token; lines are 1-based."""

    opening: int
    marker: str
    info: str
    closing: int | None  # None: never closed
    options: dict[str, tuple[int, str]] = field(default_factory=dict)  # name -> (line, value)
    body: list[tuple[int, str]] = field(default_factory=list)  # the lines after the options
    early: int | None = None  # a line inside it where another block opens: closed by a later fence

    @property
    def directive(self) -> str | None:
        return self.info[1:].partition("}")[0] if self.info.startswith("{") else None

    @property
    def tags(self) -> set[str]:
        value = self.options.get("tags", (0, ""))[1]
        return {t.strip().strip("'\"") for t in value.strip().strip("[]").split(",") if t.strip()}


@dataclass
class Source:
    """One page as its author wrote it: its fenced blocks (nested ones too), and outside code its
    headings (top level only: sections), its labels and its tokens (each .map in the page's lines)."""

    path: Path
    shown: str
    blocks: list[Block] = field(default_factory=list)
    headings: list[tuple[int, int, str]] = field(default_factory=list)  # (line, level, title)
    labels: list[tuple[int, str]] = field(default_factory=list)  # (line, label): (label)= lines, :name:
    tokens: list[Token] = field(default_factory=list)
    roles: list[tuple[int, str, str, str]] = field(default_factory=list)  # (line, role, content, paragraph)

    @property
    def cells(self) -> list[Block]:
        return [b for b in self.blocks if b.directive == "code-cell"]

    @property
    def figures(self) -> list[Block]:
        return [b for b in self.blocks if b.directive in FIGURES]

    def problem(self, line: int, what: str, todo: str) -> Problem:
        return Problem(self.shown, line, what, todo)


def _block(token: Token, lines: list[str], offset: int) -> Block:
    """The block of a fence token of lines (line 0 of lines is the page's line offset + 1)."""
    start, end = (line - offset for line in token.map or (0, 0))
    last = lines[end - 1].strip()
    closed = end - 1 > start and len(last) >= len(token.markup) and not last.strip(token.markup[0])
    inner = lines[start + 1 : end - closed]
    block = Block(offset + start + 1, token.markup, token.info.strip(), offset + end if closed else None)
    opens = [i for i, line in enumerate(inner) if line.strip().startswith(token.markup)]
    block.early = next(
        (block.opening + 1 + i for i in opens if inner[i].strip().lstrip(token.markup[0]).startswith("{")), None
    )
    yaml = bool(block.directive and inner and inner[0].strip() == "---")  # options as YAML, between --- lines
    j = int(yaml)
    while block.directive and j < len(inner) and (inner[j].strip() != "---" if yaml else is_option_line(inner[j])):
        name, _, value = inner[j].strip().removeprefix(":").partition(":")
        block.options[name] = (block.opening + 1 + j, value.strip())
        j += 1
    j += yaml and j < len(inner)
    block.body = [(block.opening + 1 + n, inner[n]) for n in range(j, len(inner))]
    return block


def _read(text: str, offset: int, top: bool, source: Source) -> None:
    """Read text (its first line is the page's line offset + 1) into source."""
    lines = text.split("\n")
    tokens = MARKDOWN.parse(text)
    for token in tokens:
        if token.map:
            token.map = [offset + token.map[0], offset + token.map[1]]
    source.tokens += tokens
    for i, token in enumerate(tokens):
        line = token.map[0] + 1 if token.map else 0
        if token.type in ("fence", "colon_fence"):
            block = _block(token, lines, offset)
            source.blocks.append(block)
            if "name" in block.options:
                source.labels.append(block.options["name"])
            if block.directive in PROSE_DIRECTIVES and block.body:
                _read("\n".join(text for _, text in block.body), block.body[0][0] - 1, False, source)
        elif token.type == "myst_target":
            source.labels.append((line, token.content))
        elif token.type == "inline":  # a role's line: its paragraph's first, plus the line breaks before it
            breaks = 0
            for child in token.children or []:
                breaks += child.type in ("softbreak", "hardbreak")
                if child.type == "myst_role":
                    source.roles.append((line + breaks, child.meta["name"], child.content, token.content))
        elif token.type == "heading_open" and top:
            source.headings.append((line, int(token.tag[1]), " ".join(tokens[i + 1].content.split())))


def shown_path(path: Path) -> str:
    """A file's path as the author writes it: from the repository's root (docs/es/<page>.md)."""
    path = Path(path).resolve()
    for root in (config.REPO, config.DOCS.parent):
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    return path.as_posix()


def unreadable(path: Path, shown: str | None = None, python: bool = False) -> Problem | None:
    """A file that is not UTF-8 (at the line of its first other byte), or Python that does not compile."""
    data, shown = Path(path).read_bytes(), shown or shown_path(path)
    try:
        text = data.decode("utf-8")
        if python:
            compile(text, str(path), "exec", flags=PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except UnicodeDecodeError as exc:
        line, column = data.count(b"\n", 0, exc.start) + 1, exc.start - data.rfind(b"\n", 0, exc.start)
        what = f"byte 0x{data[exc.start]:02x} (column {column}, byte {exc.start} of the file) is not UTF-8"
        return Problem(shown, line, what, "save the file as UTF-8")
    except (SyntaxError, ValueError) as exc:  # `return` outside a function too: Python's own compiler
        what = f"Python cannot compile it: {getattr(exc, 'msg', exc)} (column {getattr(exc, 'offset', None)})"
        return Problem(shown, getattr(exc, "lineno", None) or 1, what, "correct the code at that line")
    return None


def read(path: Path, shown: str | None = None) -> Source:
    return parse(Path(path).read_text("utf-8"), Path(path), shown or shown_path(path))


def parse(text: str, path: Path = Path("page.md"), shown: str = "page.md") -> Source:
    source = Source(path, shown)
    _read(text, 0, True, source)
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
    named = {p: (path, path.relative_to(docs.parent).as_posix()) for p, path in page_sources(docs / language).items()}
    return {
        page: parse("", path, shown) if unreadable(path) else read(path, shown)  # check.problems names it
        for page, (path, shown) in named.items()
        if path.suffix == ".md"
    }


# --- fences and cells


def fence_problems(source: Source) -> Iterator[Problem]:
    for block in (b for b in source.blocks if b.early is not None or b.closing is None):
        what = f"the {block.marker} fence opened here ({block.info or 'a code block'})"
        line = f"a {block.marker} line"
        if block.early is None:
            what, todo = (
                f"{what} is never closed: the rest of the page is inside it",
                f"add {line} where the block ends",
            )
        else:
            closed = f"is closed only at line {block.closing}" if block.closing else "is never closed"
            what = f"{what} {closed}, after another block opens at line {block.early}"
            todo = f"close it with {line} before line {block.early}"
        yield source.problem(block.opening, what, todo)


def front_matter_problems(source: Source) -> Iterator[Problem]:
    """Front matter that YAML cannot read, at its line (MyST reads it: a page's kernel, its format)."""
    for token in source.tokens[:1]:
        if token.type == "front_matter" and token.map:
            try:
                yaml.safe_load(token.content)
            except yaml.YAMLError as exc:
                line, mark, start = (
                    token.map[0] + 2,
                    getattr(exc, "problem_mark", None),
                    getattr(exc, "context_mark", None),
                )
                what = f"its front matter is not YAML: {getattr(exc, 'problem', None) or exc}"
                what += (
                    f" ({exc.context} from line {line + start.line})" if start and getattr(exc, "context", 0) else ""
                )
                yield source.problem(line + (mark.line if mark else 0), what, "correct that line")
        elif token.type == "hr" and token.map == [0, 1] and token.markup.startswith("---"):
            yield source.problem(1, "the front matter opened here is never closed", "close it with a --- line")


def example_of(source: Source, block: Block) -> Path:
    return (source.path.parent / block.options["load"][1]).resolve()


def cell_problems(source: Source) -> Iterator[Problem]:
    for cell in source.cells:
        if cell.early is not None or cell.closing is None:
            continue  # fence_problems names it
        if "load" not in cell.options:
            todo = "put the code in examples/<name>.py, give it an entry in examples/cases.toml and load it"
            what = "a code cell written on the page (a page holds no code of its own)"
            yield source.problem(cell.opening, what, f"{todo}: :load: <path to examples>/<name>.py")
            continue
        (line, target), path = cell.options["load"], example_of(source, cell)
        if body := [n for n, text in cell.body if text.strip()]:
            what = f"the cell that loads {target} (line {cell.opening}) has a body of its own, which MyST-NB replaces"
            todo = "a :load: cell holds only its options: close the cell right after them"
            yield source.problem(body[0], f"{what} with the file", todo)
        found: tuple[int, str, str] | None = None
        if path.parent != config.EXAMPLES.resolve() or path.suffix != ".py":
            found = line, f"the cell loads {target}, not a file of examples/", "pages load examples/<name>.py files"
        elif not path.is_file():
            found = (
                line,
                f"the cell loads {target}, which does not exist",
                f"write examples/{path.name}, or correct the path",
            )
        elif path.stem not in cases.manifest():
            todo = f'declare what examples/{path.name} does: [{path.stem}] expect = "completes"'
            found = (
                line,
                f"examples/cases.toml has no entry [{path.stem}]",
                f'{todo} (or "raises", with error and match)',
            )
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


def glossary_entries(source: Source) -> list[list[tuple[int, str]]]:
    """The terms of each entry of a page's {glossary} block, with their lines, in source order (a
    term line starts at the left margin; its definition is indented)."""
    entries: list[list[tuple[int, str]]] = []
    for block in (b for b in source.blocks if b.directive == "glossary"):
        last = ""  # the last line that is not blank
        for number, line in block.body:
            if line[:1].strip():
                entries += [] if last[:1].strip() else [[]]
                entries[-1].append((number, line.strip()))
            last = line if line.strip() else last
    return entries


# --- what the prose cites and quotes

XREFS = {"ref": "label", "numref": "label", "doc": "page", "term": "term"}  # the role -> what it names


def xref_problems(docs: Path, language: str, sources: dict[str, Source]) -> Iterator[Problem]:
    """Each {ref}, {numref}, {doc} or {term} that names no label, page or term of its language's
    tree, as Sphinx resolves it (labels and terms in lower case), with the closest there is."""
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


def glue_quotes(source: Source) -> list[tuple[int, str, str]]:
    """(line, key, its paragraph) of each glued value a page quotes: a {glue} role, a {glue:...} block."""
    blocks = [(b.opening, b.info.partition("}")[2].strip(), b.info, b.directive or "") for b in source.blocks]
    roles = [
        (line, content.partition(":")[0].strip(), paragraph, role) for line, role, content, paragraph in source.roles
    ]
    return [(line, key, text) for line, key, text, name in roles + blocks if name.startswith("glue")]


def quotes(keys: Collection[str]) -> list[str]:
    """ "file:line: «sentence»" of each place the pages quote a glued key (or its `<key>_<language>`)."""
    found = []
    for language in config.LANGUAGES:
        names = {name for key in keys for name in (key, f"{key}_{language}")}
        for source in tree_sources(config.DOCS, language).values():
            found += [f"{source.shown}:{n}: «{sentence(t, k)}»" for n, k, t in glue_quotes(source) if k in names]
    return list(dict.fromkeys(found))


def sentence(paragraph: str, part: str) -> str:
    """The sentence of a paragraph (its Markdown) that holds part, on one line, cut at 140 characters."""
    sentences = re.split(r"(?<=[.!?:])\s+", " ".join(paragraph.split()))
    found = next((s for s in sentences if part in s), sentences[0])
    return found if len(found) <= 140 else found[:139] + "…"


def glued(name: str, line: int | None = None) -> list[str]:
    """The keys the hidden checks of examples/<name>.py glue (literally), in order; with line, those
    whose value reads a name that the statement at line reads, else the first glued from line on."""
    checks = ast.parse(cases.split(cases.manifest()[name].path)[1])

    def reads(*nodes: ast.AST) -> set[str]:
        return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)} - set(vars(builtins))

    calls = [
        c for c in ast.walk(checks) if isinstance(c, ast.Call) and ast.unparse(c.func).split(".")[-1][:4] == "glue"
    ]
    literal = [(c, c.args[0].value) for c in calls if c.args and isinstance(c.args[0], ast.Constant)]
    keys = sorted((c.lineno, key, reads(*c.args[1:])) for c, key in literal if isinstance(key, str))
    if line is None:
        return [key for _, key, _ in keys]
    read = reads(*(s for s in checks.body if s.lineno <= line <= (s.end_lineno or s.lineno)))
    return [key for _, key, used in keys if used & read] or [key for at, key, _ in keys if at >= line][:1]


def guarded(name: str, line: int | None, key: str | None = None) -> list[str]:
    """The sentences, in every language, that a hidden check of examples/<name>.py at line vouches
    for: those quoting key, or the values it glues (execbook.check.glued), else those after its cell."""
    keys = [key] if key else glued(name, line)
    found = quotes(keys)
    if key or found:
        return found
    for language in config.LANGUAGES:
        for source in tree_sources(config.DOCS, language).values():
            for cell in (c for c in source.cells if Path(c.options.get("load", (0, ""))[1]).stem == name):
                texts = [(t.map[0], t.content) for t in source.tokens if t.type == "inline" and t.map]
                found += [
                    f"{source.shown}:{n + 1}: «{sentence(text, '')}»" for n, text in sorted(texts) if n >= cell.opening
                ][:1]
    return found


def unread_glue(example: Path) -> list[Problem]:
    """Each number a hidden check glues for the prose (glue_number, glue_by_value) that no assert of
    that example reads as glued, with the first sentence quoting it: nothing checks what it says."""
    checks = ast.parse(cases.split(example)[1])
    asserted = {ast.unparse(n) for a in ast.walk(checks) if isinstance(a, ast.Assert) for n in ast.walk(a)}
    found = []
    for call in (c for c in ast.walk(checks) if isinstance(c, ast.Call) and len(c.args) > 1):
        name, (key, value) = ast.unparse(call.func).split(".")[-1], call.args[:2]
        if name in ("glue_number", "glue_by_value") and ast.unparse(value) not in asserted:
            said = "".join(f"; it is quoted at {s}" for s in quotes([getattr(key, "value", "")])[:1])
            what = f"{ast.unparse(key)} glues {ast.unparse(value)}, which no assert of the example reads"
            todo = "assert, on what it glues, what the sentences quoting it say (a median: half the values reach it)"
            found.append(Problem(f"examples/{example.name}", call.lineno, what + said, todo))
    return found


def flipped(manifest: Path) -> list[str]:
    """A note per entry that said `raises` at the last commit (git) and now says `completes`, with the
    sentences that quote what its example glues: they may describe an error that no longer happens."""
    git = ["git", "show", f"HEAD:./{manifest.name}"]
    try:  # no git, no commit: nothing to compare; a manifest TOML cannot read: check.problems names it
        committed = subprocess.run(git, cwd=manifest.parent, capture_output=True, text=True).stdout
        before, now = tomllib.loads(committed), tomllib.loads(manifest.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    was = {name for name, entry in before.items() if entry.get("expect") == "raises"}
    return [
        f"note: examples/cases.toml [{name}] now says completes (it said raises): check that these sentences hold"
        + "".join(f"\n  {s}" for s in quotes(glued(name)) or ["(no page quotes its glued values)"])
        for name, entry in now.items()
        if name in was and entry.get("expect") == "completes" and name in cases.manifest()
    ]


# --- the mirror


def mirror_problems(
    docs: str | Path,
    languages: Collection[str],
    sources: dict[str, dict[str, Source]] | None = None,
    skip: Collection[str] = (),
) -> list[Problem]:
    """Where the language trees differ: pages, labels, headings, figures, code cells, glossary entries
    (pages in skip are compared only by their existence: their fences are broken)."""
    sources = sources or {lang: tree_sources(Path(docs), lang) for lang in languages}
    found: list[Problem] = []
    for lang, other in permutations(languages, 2):
        for page in sorted(set(sources[lang]) - set(sources[other])):
            what, todo = f"a page with no counterpart in docs/{other}", f"write docs/{other}/{page}.md"
            found.append(
                sources[lang][page].problem(1, what, f"{todo} (same labels, sections, code cells), or remove this one")
            )
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
    """Where the items of a kind of two languages' page do not pair up: the first pair that differs
    (each one, in a glossary), else the first item of the longer page without a counterpart."""
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


# --- all of it


def problems(docs: str | Path | None = None, languages: Collection[str] | None = None) -> list[Problem]:
    """Everything wrong with the sources, in file and line order (empty when the book may build)."""
    docs, languages = Path(docs or config.DOCS), languages or tuple(config.LANGUAGES)
    if bad := unreadable(config.MANIFEST):
        return [bad]
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
        for page, source in sources[lang].items():
            fences = [*filter(None, [unreadable(source.path, source.shown)]), *fence_problems(source)]
            broken |= {page} if fences else set()
            found += [*fences, *front_matter_problems(source), *cell_problems(source), *include_problems(source)]
            examples = {example_of(source, c) for c in source.cells if "load" in c.options}
            loaded |= {e for e in examples if e.is_file() and e.parent == config.EXAMPLES.resolve()}
        found += xref_problems(docs, lang, sources[lang])
    loaded = {example for example in loaded if unreadable(example, python=True) is None}
    found += width_problems(loaded)
    for example in sorted(loaded):
        shown = f"examples/{example.name}"
        todo = f"give the comment its line in every language ({', '.join(config.LANGUAGES)}), or untag it"
        found += [Problem(shown, line, what, todo) for line, what in comments.problems(example.read_text("utf-8"))]
        found += unread_glue(example)
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
    for note in flipped(config.MANIFEST):
        print(note, file=sys.stderr)
    pages = sum(len(page_sources(config.DOCS / lang)) for lang in config.LANGUAGES)
    print(f"execbook: check: ok, {pages} pages in {len(config.LANGUAGES)} languages ({seconds})")
    return 0
