"""The sentences that quote glued values: those a failing hidden check vouches for, and those that
quoted an error an example no longer raises (its entry flipped from raises to completes)."""

import ast
import builtins
import re
import subprocess
import tomllib
from collections.abc import Collection
from pathlib import Path

from . import cases, config
from .source import Source, tree_sources


def glue_quotes(source: Source) -> list[tuple[int, str, str]]:
    """(line, key, its paragraph) of each glued value a page quotes: a {glue} role, a {glue:...} block."""
    blocks = [(b.opening, b.info.partition("}")[2].strip(), b.info, b.directive or "") for b in source.blocks]
    roles = [
        (line, content.partition(":")[0].strip(), paragraph, role) for line, role, content, paragraph in source.roles
    ]
    return [(line, key, text) for line, key, text, name in roles + blocks if name.startswith("glue")]


def quoting(keys: Collection[str]) -> list[str]:
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
    """The keys the hidden checks of examples/<name>.py glue literally; with line, those reading a name the
    statement at line reads, else the first glued from line on."""
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
    """The sentences a hidden check at line vouches for: quoting key or what it glues, else after its cell."""
    found = quoting([key] if key else glued(name, line))
    if key or found:
        return found
    for language in config.LANGUAGES:
        for source in tree_sources(config.DOCS, language).values():
            for cell in (c for c in source.cells if Path(c.options.get("load", (0, ""))[1]).stem == name):
                texts = [(t.map[0], t.content) for t in source.tokens if t.type == "inline" and t.map]
                after = [f"{source.shown}:{n + 1}: «{sentence(t, '')}»" for n, t in sorted(texts) if n >= cell.opening]
                found += after[:1]
    return found


def flipped(manifest: Path) -> list[str]:
    """A note per entry that said `raises` at the last commit and now `completes`, with the sentences quoting
    what it glues: they may describe an error that no longer happens."""
    git = ["git", "show", f"HEAD:./{manifest.name}"]
    try:  # no git, no commit: nothing to compare; a manifest TOML cannot read: lint.problems names it
        committed = subprocess.run(git, cwd=manifest.parent, capture_output=True, text=True).stdout
        before, now = tomllib.loads(committed), tomllib.loads(manifest.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    was = {name for name, entry in before.items() if entry.get("expect") == "raises"}
    return [
        f"note: examples/cases.toml [{name}] now says completes (it said raises): check that these sentences hold"
        + "".join(f"\n  {s}" for s in quoting(glued(name)) or ["(no page quotes its glued values)"])
        for name, entry in now.items()
        if name in was and entry.get("expect") == "completes" and name in cases.manifest()
    ]
