"""The page model: a page as its author wrote it, read with myst-parser's own parser: its fenced
blocks (cells, directives), labels, headings, roles and glossary entries, each at its line."""

from ast import PyCF_ALLOW_TOP_LEVEL_AWAIT
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.directives import is_option_line
from myst_parser.parsers.mdit import create_md_parser

from . import config

MYST_EXTENSIONS = ["colon_fence", "dollarmath", "deflist", "substitution"]  # the book's (sphinxext.config)
MYST = MdParserConfig(enable_extensions=set(MYST_EXTENSIONS))
MARKDOWN = create_md_parser(MYST, RendererHTML)  # myst-parser's parser, as Sphinx and MyST-NB read a page
HIDDEN = {"hide-input", "remove-input", "remove-cell"}  # tags that keep a cell's code out of sight
PAGE_SUFFIXES = (".md", ".ipynb")
GLOSSARY = "glossary"  # the page whose terms pair up across languages, entry by entry
PROSE_DIRECTIVES = {  # those whose content is Markdown (read for headings, labels, blocks)
    *("admonition", "attention", "caution", "danger", "error", "hint", "important", "note", "seealso"),
    *("tip", "warning", "dropdown", "margin", "sidebar", "topic", "tab", "tab-item", "tab-set", "tabs"),
    *("figure", "glue:figure", "glossary"),
}
FIGURES = {"figure", "glue:figure", "image"}


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
    """One page: its fenced blocks (nested ones too), and outside code its top-level headings, labels and tokens."""

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
    """A file's path as the author writes it, from the repository's root (docs/es/<page>.md)."""
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
    """page name -> Source of one language's Markdown pages, named from the docs folder's parent."""
    named = {p: (path, path.relative_to(docs.parent).as_posix()) for p, path in page_sources(docs / language).items()}
    return {
        page: parse("", path, shown) if unreadable(path) else read(path, shown)  # lint.problems names it
        for page, (path, shown) in named.items()
        if path.suffix == ".md"
    }


def example_of(source: Source, block: Block) -> Path:
    return (source.path.parent / block.options["load"][1]).resolve()


def glossary_entries(source: Source) -> list[list[tuple[int, str]]]:
    """The terms of each entry of a page's {glossary} block, with their lines (a definition is indented)."""
    entries: list[list[tuple[int, str]]] = []
    for block in (b for b in source.blocks if b.directive == "glossary"):
        last = ""  # the last line that is not blank
        for number, line in block.body:
            if line[:1].strip():
                entries += [] if last[:1].strip() else [[]]
                entries[-1].append((number, line.strip()))
            last = line if line.strip() else last
    return entries
