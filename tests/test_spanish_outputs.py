"""No English word that the book itself prints on a Spanish page (issue 54 item 2; review 2026-12-07
L2). One execution serves both languages, so what a cell prints must read in both: code-like labels
(`name = value`, `x.shape`), symbols (✓), numbers. This test reads every cell output of the built
Spanish pages, every value the Spanish pages glue (tables, phrases) and the text drawn in every
Spanish figure, and fails on an English word, naming the page and the example that printed it.

An English word: one the English pages' prose uses and the Spanish pages' prose never does. It is
not the book's own when it is code (a word joined to code punctuation, a Python keyword, an
identifier of the example or of the repository module it imports), or part of a message of a
program the page runs and quotes as printed: PyTorch's and the diagnoser's (a run of three words
around it found in their code), and `just`'s in the reproducer's transcript, where a command as typed
(`$ just ...`) or as just echoes it (`python -m minigpt ...`) is code. The course's `minigpt` command
line is the book's own: the Spanish transcript runs it with LANGUAGE=es (minigpt/words.py).
"""

import ast
import functools
import html
import json
import keyword
import re
import shutil
from pathlib import Path

import pytest

from execbook import cases, config, gluing, pages, quotes
from execbook.tracebacks import FOLDED  # the engine's line for frames left out, in English

LETTERS = "A-Za-zñáéíóúüÑÁÉÍÓÚÜ"
WORD = re.compile(rf"(?<![\w.\-/'\"`@#$%\[=])([{LETTERS}]+)(?![\w(\[=.`'\"/-]|\s*=)")
# code inside a line: a call with its arguments, a tuple of names, a subscript
CODE = re.compile(r"[\w.]+\([^()]*\)|\((?:[\w.]+, )+[\w.]+\)|\w+\[[^\]]*\]")
# the repository's packages whose names a printed table or line may use as its labels
PACKAGES = ("minigpt", "phase25", "tapegrad")


def prose_words(language):
    found = set()
    for path in (config.DOCS / language).rglob("*.md"):
        text = re.sub(r"(?s)```.*?```|`[^`]*`|\{[^}]*\}|\([^)]*\)=", " ", path.read_text("utf-8"))
        found |= {w.lower() for w in re.findall(rf"[{LETTERS}]+", text)}
    return found


@functools.cache
def english():
    return (prose_words("en") - prose_words("es")) | {"ok", "completed", "yes"}


@functools.cache
def program_text():
    """The text of the programs whose messages a page shows as printed, on one line."""
    import torch

    import inplace_doctor

    parts = []
    libraries = Path(torch.__file__).parent / "lib"
    for library in sorted(libraries.glob("libtorch*.so*")) + sorted(libraries.glob("libc10.so*")):
        parts += [s.decode() for s in re.findall(rb"[\x20-\x7e]{12,}", library.read_bytes()) if b" " in s]
    for root in (Path(torch.__file__).parent, Path(inplace_doctor.__file__).parent):
        parts += [p.read_text("utf-8", "replace") for p in root.rglob("*.py")]
    just = shutil.which("just")
    if just:
        parts += [s.decode() for s in re.findall(rb"[\x20-\x7e]{12,}", Path(just).read_bytes()) if b" " in s]
    return " ".join(parts)


@functools.cache
def programs():
    return normalized(program_text())


def normalized(text):
    """Text with each number, code-like token and f-string field as #, quotes between joined strings gone."""
    text = re.sub(r"[\"']\s*f?[\"']", "", text)
    return " ".join(re.sub(r"\{[^{}]*\}|\S*[._=(\[]\S*|\d+(?:\.\d+)?", "#", text).split())


@functools.cache
def torch_names():
    """PyTorch's API names, and its backward nodes' forward names (View for ViewBackward0)."""
    import torch

    modules = (torch, torch.nn, torch.nn.functional, torch.autograd, torch.Tensor)
    nodes = [re.sub(r"Backward\d+(_copy)?$", "", n) for n in dir(torch._C._functions)]
    slots = {a.removeprefix("_saved_") for n in dir(torch._C._functions) for a in dir(getattr(torch._C._functions, n))}
    nodes += [*slots, *keyword.kwlist, "True", "False", "None"]
    return {n for m in modules for n in dir(m)} | set(nodes) | set(re.findall(r"_saved_([a-z]\w*)", program_text()))


def names_in(source):
    """The identifiers of Python source: names, attributes, arguments, definitions, and the string
    keys of its dictionaries and subscripts."""
    found = set(keyword.kwlist) | {"True", "False", "None"}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, (ast.arg, ast.keyword)) and node.arg:
            found.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found.add(node.name)
        keys = node.keys if isinstance(node, ast.Dict) else [node.slice] if isinstance(node, ast.Subscript) else []
        found |= {k.value for k in keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return found


@functools.cache
def sources(name):
    """The source of examples/<name>.py and of the repository modules it imports from."""
    found = [(config.EXAMPLES / f"{name}.py").read_text("utf-8")]
    for node in ast.walk(ast.parse(found[0])):
        modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        modules += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        for module in (m for m in modules if m.split(".")[0] in PACKAGES):
            path = config.REPO / Path(*module.split("."))
            found += [p.read_text("utf-8") for p in (path.with_suffix(".py"), path / "__init__.py") if p.is_file()]
    return found


def string_words(source):
    """The words of a source's strings that label output: not a dictionary key or a subscript (a field's
    name), not the expression an f-string's `{x = }` repeats."""
    tree = ast.parse(source)
    keys = {id(k) for n in ast.walk(tree) for k in (n.keys if isinstance(n, ast.Dict) else [])}
    keys |= {id(n.slice) for n in ast.walk(tree) if isinstance(n, ast.Subscript)}
    inside = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    found = set()
    for node in ast.walk(tree):
        parts = node.values if isinstance(node, ast.JoinedStr) else [] if id(node) in inside else [node]
        for part, after in zip(parts, [*parts[1:], None][: len(parts)], strict=True):
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)) or id(part) in keys:
                continue
            text = part.value
            if isinstance(after, ast.FormattedValue) and text.rstrip().endswith("="):
                text = text.rstrip()[:-1].rstrip().removesuffix(ast.unparse(after.value))
            found |= {w.lower() for w in re.findall(rf"[{LETTERS}]+", text)}
    return found


@functools.cache
def own_words(name):
    """The words of the strings of the code the example shows: what it labels its output with."""
    return string_words(cases.split(config.EXAMPLES / f"{name}.py")[0])


@functools.cache
def module_words(name):
    """The words of the strings of the repository modules the example uses (their tables' headers)."""
    return set().union(*map(string_words, sources(name)[1:]))


@functools.cache
def identifiers(name):
    """The identifiers of examples/<name>.py, of the repository modules it imports from, and of the model."""
    found = names_in((config.REPO / "minigpt" / "model.py").read_text("utf-8"))  # the model's module names
    for source in sources(name):
        found |= names_in(source)
    return found


def quoted(word, tokens):
    """Whether word, among a line's tokens, is in a run of two or three of them that a program writes."""
    at = [i for i, token in enumerate(tokens) if word in re.findall(rf"[{LETTERS}]+", token)]
    runs = {" ".join(tokens[a : a + n]) for i in at for n in (2, 3) for a in range(max(0, i - n + 1), i + 1)}
    return any(run in programs() for run in runs if len(re.findall(rf"[{LETTERS}]{{2,}}", run)) > 1)


def english_words(text, name):
    """The English words of text that the book wrote (in a string of the example, or of a repository
    module it uses, unless an identifier there) and that are neither code nor a quoted program's."""
    found = []
    for line in text.splitlines():
        if line.startswith(("$ ", "python -m ")):  # a command, as typed or as just echoes it
            continue
        for token in WORD.finditer(CODE.sub(lambda m: " " * len(m[0]), line)):
            word = token[1]
            # a word the example's own string writes is a label; a module's may be a field's name
            own = word.lower() in own_words(name)
            if word.lower() not in english() or not (own or word.lower() in module_words(name)):
                continue
            if word in torch_names() or (not own and word in identifiers(name)):
                continue
            if not quoted(word, normalized(line).split()):
                found.append(f"{word!r} in «{line.strip()[:100]}»")
    return found


# Glued values that quote another text word for word: the course's first draft (examples/errata.py)
QUOTED = ("seed_",)


def glued_by(key, names):
    """The example, of names, whose hidden checks glue key (or its language's `<key>_<language>`)."""
    base = key.removesuffix("_es")
    for name in names:
        source = cases.split(config.EXAMPLES / f"{name}.py")[1]
        if base in quotes.glued(name) or re.search(rf"glue\w*\(f?[\"']{re.escape(base.split('_')[0])}", source):
            return name
    return names[0]


def spanish_pages(site):
    root = site / "es"
    return [
        p.relative_to(root).with_suffix("").as_posix()
        for p in sorted(root.rglob("*.html"))
        if (config.DOCS / "es" / p.relative_to(root).with_suffix(".md")).is_file()
    ]


def test_an_english_word_the_book_prints_is_found_and_code_or_torch_is_not():
    assert english_words("A: completed, test_accuracy[-1] = 100.0%", "silent_training") == [
        "'completed' in «A: completed, test_accuracy[-1] = 100.0%»"
    ]
    assert {"ok", "completed"} <= english()
    assert english_words("len(valid) = 69, same = True; backward() ✓", "theory04_stale") == []
    assert english_words("stale (B), row  18: NativeLayerNorm", "theory04_graph") == []  # no longer its string
    message = "one of the variables needed for gradient computation has been modified by an inplace operation"
    assert english_words(f"node._saved_input: {message}", "saved_tensors") == []


def test_what_the_spanish_pages_print_is_spanish(site):
    from bs4 import BeautifulSoup

    found = []
    for page in spanish_pages(site):
        article = BeautifulSoup((site / "es" / f"{page}.html").read_text("utf-8"), "html.parser").find("article")
        source = pages.notebook(config.DOCS / "es" / f"{page}.md")
        shown = [
            c.metadata.get(pages.EXAMPLE)
            for c in source.cells
            if c.cell_type == "code" and "remove-cell" not in c.metadata.get("tags", [])
        ]
        cells = article.select("div.cell") if article else []
        assert len(cells) == len(shown), f"{page}: {len(cells)} cells on the page, {len(shown)} in its source"
        for name, cell in zip(shown, cells, strict=True):
            for output in cell.select("div.cell_output div.output"):
                if {"traceback", "stderr"} & set(output.get("class", [])):  # PyTorch's and Python's
                    found += [f"{page} · examples/{name}.py: {m[0]}" for m in FOLDED.finditer(output.get_text())]
                    continue
                found += [f"{page} · examples/{name}.py printed {w}" for w in english_words(output.get_text(), name)]
        store = config.BUILD / "jupyter_execute" / "es" / f"{page}.glue.json"
        glued = json.loads(store.read_text("utf-8")) if store.is_file() else {}
        for key, value in glued.items():
            if key.endswith("_en") or key.startswith(QUOTED):
                continue
            name = glued_by(key, [n for n in shown if n] + pages.examples(source))
            data = value.get("data", {})
            if "text/html" in data:
                text = html.unescape(re.sub(r"<[^>]+>", "\n", "".join(data["text/html"])))
            else:
                text = "".join(data.get("text/plain", ""))
                text = ast.literal_eval(text) if text[:1] in "'\"" else text
            found += [f"{page} · examples/{name}.py glued {key}: {w}" for w in english_words(text, name)]
    assert found == [], "English on the Spanish pages, printed by the book itself:\n" + "\n".join(found)


def test_the_spanish_downloads_say_the_frames_left_out_in_spanish(site):
    """The executed notebooks and scripts a Spanish page offers: the engine's line for the frames it
    left out is Spanish there too (execbook.sphinxext.downloads)."""
    downloads = sorted((site / "es" / "_downloads").rglob("*.ipynb"))
    assert downloads, "the Spanish pages offer no notebook"
    found = [f"{p.relative_to(site)}: {m[0]}" for p in downloads for m in FOLDED.finditer(p.read_text("utf-8"))]
    assert found == []


FIGURES = ["silent_training", "ladder_4_compare", "theory04_graph", "compat_tables"]


@pytest.mark.usefixtures("as_the_build")
@pytest.mark.parametrize("name", FIGURES)
def test_what_the_spanish_figures_say_is_spanish(site, name, monkeypatch):
    """Each figure drawn again for Spanish, as its example's hidden checks draw it: its text artists."""
    import matplotlib

    drawn = []

    def glue_figure(key, draw):
        figure = draw("es")
        drawn.append((key, [t.get_text() for t in figure.findobj(matplotlib.text.Text) if t.get_text().strip()]))
        matplotlib.pyplot.close(figure)

    monkeypatch.setattr(gluing, "glue_figure", glue_figure)
    cases.execute(name)
    assert drawn, f"examples/{name}.py draws no figure: update FIGURES"
    found = [
        f"examples/{name}.py draws {key}: {w}" for key, texts in drawn for w in english_words("\n".join(texts), name)
    ]
    assert found == []
