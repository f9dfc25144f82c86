"""What a reader downloads from an executed page: the executed notebook and the page's code as one
script, both in the page's language, both runnable from a clone with the project installed.

book/sphinxext/downloads.py hands `notebook_download` and `script_download` the page as MyST-NB
executed it (its cells, this build's outputs merged in); they are pure functions of it: the only
files they read are those a `literalinclude` names.

What a download keeps, drops and rewrites:
- cells tagged `remove-cell` (the book's setup and guard cells, book.pages) are dropped; a
  `remove-output` cell keeps its code and loses its outputs, as on the page; every other cell and
  tag stays: `hide-input` cells hold code that later cells need, and `raises-exception` is honoured
  by nbclient and Jupyter, so a run goes on past an expected error;
- outputs are the build's, minus the glue records (their values are written into the prose),
  each cell's streams merged (as on the page); no execution timing, cell ids numbered in order,
  JSON as nbformat writes it (sorted keys): two builds of one commit write the same bytes;
- Markdown: the MyST syntax Jupyter cannot render becomes plain Markdown, one rule per construct
  (`markdown`): glued values are pasted as text (figures as cell attachments, tables as HTML);
  cross-references and glossary terms become links to the published book; admonitions become
  quotes with their title in bold; dropdowns become <details>; tabs a bold title per tab;
  literalinclude the code it names; definition lists bullet lists; labels HTML anchors. The
  run stamp (the build's date) is left out;
- the script: the code cells in order, each under `# %%` and the heading of its section; an
  expected-error cell runs inside try/except, prints the error and goes on.
"""

import ast
import copy
import html
import re
import types
from pathlib import Path

import nbformat

REMOVE_CELL, REMOVE_OUTPUT, RAISES = "remove-cell", "remove-output", "raises-exception"
STAMP_KEY = "book_stamp"  # the run stamp's glue key (book.kernel.stamp): the build's date and time
GLUE_PREFIX = "application/papermill.record/"  # MyST-NB's glue outputs: data keys start with this
NBFORMAT_MINOR = 5  # cell ids

TEXT = {
    "es": {
        "menu": "Descargar",
        "menu_label": "Descargar esta página",
        "notebook": "cuaderno ejecutado (.ipynb)",
        "script": "código (.py)",
        "note": ("> Cuaderno descargado de [{title}]({url}), con las salidas de la construcción del libro. "
                 "Para ejecutarlo: un clon del repositorio con el proyecto instalado (`pip install -e .`). "
                 "Las celdas marcadas `raises-exception` fallan a propósito: el error es la lección."),
        "script_header": ("El código de la página «{title}», {url}\n"
                          "Se ejecuta desde un clon del repositorio con el proyecto instalado (pip install -e .)."),
        "expected": "Error esperado:",
        "not_raised": "Esta celda debía lanzar un error y no lo lanzó.",
        "lesson": "Esta celda falla a propósito: el error es la lección. El script lo imprime y sigue.",
        "admonitions": {"note": "Nota", "tip": "Consejo", "hint": "Pista", "important": "Importante",
                        "warning": "Aviso", "caution": "Precaución", "attention": "Atención",
                        "danger": "Peligro", "error": "Error", "seealso": "Véase también"},
    },
    "en": {
        "menu": "Download",
        "menu_label": "Download this page",
        "notebook": "executed notebook (.ipynb)",
        "script": "code (.py)",
        "note": ("> Notebook downloaded from [{title}]({url}), with the outputs of the book's build. "
                 "To run it: a clone of the repository with the project installed (`pip install -e .`). "
                 "The cells tagged `raises-exception` fail on purpose: the error is the lesson."),
        "script_header": ("The code of the page \"{title}\", {url}\n"
                          "It runs from a clone of the repository with the project installed (pip install -e .)."),
        "expected": "Expected error:",
        "not_raised": "This cell was meant to raise an error and did not.",
        "lesson": "This cell fails on purpose: the error is the lesson. The script prints it and goes on.",
        "admonitions": {"note": "Note", "tip": "Tip", "hint": "Hint", "important": "Important",
                        "warning": "Warning", "caution": "Caution", "attention": "Attention",
                        "danger": "Danger", "error": "Error", "seealso": "See also"},
    },
}
CROSS_REFERENCES = {"ref", "numref", "doc", "term", "any"}
GLUE_ROLES = {"glue", "glue:", "glue:any", "glue:text"}
GLUE_DIRECTIVES = {"glue", "glue:", "glue:any", "glue:md", "glue:figure"}
CODE_DIRECTIVES = {"code-block", "code", "sourcecode"}
TAB_DIRECTIVES = {"tab", "tab-item"}
TAB_CONTAINERS = {"tabs", "tab-set"}
# A role, or an inline code span (left as it is): tried in this order at each position
INLINE = re.compile(r"\{(?P<role>[A-Za-z][\w:.+-]*)\}`(?P<content>[^`]+)`|(?P<code>`+)[^`]*?(?P=code)", re.S)
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|:{3,}|~{3,})(?P<rest>.*)$")
DIRECTIVE = re.compile(r"^\{(?P<name>[\w:.+-]+)\}\s*(?P<argument>.*)$")
OPTION = re.compile(r"^:(?P<key>[\w-]+):(?:\s+(?P<value>.*))?$")
LABEL = re.compile(r"^\((?P<label>[^()\s]+)\)=\s*$")
HEADING = re.compile(r"^#{1,6}\s+(?P<text>.+?)\s*#*\s*$")
EXPLICIT_TITLE = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$", re.S)
MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\(([^)]*)\)")


class DownloadError(ValueError):
    """A page the downloads cannot render faithfully (a glued value that is missing, say)."""


def glue_values(notebook):
    """{key: mimebundle} of everything the notebook's cells glued (MyST-NB's glue outputs)."""
    found = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            scrapbook = output.get("metadata", {}).get("scrapbook")
            if scrapbook:
                prefix = scrapbook.get("mime_prefix", GLUE_PREFIX)
                found[scrapbook["name"]] = {m[len(prefix):] if m.startswith(prefix) else m: v
                                            for m, v in output.get("data", {}).items()}
    return found


def glued_text(bundle, spec=""):
    """A glued value as {glue:text} shows it: its text/plain, a string's quotes removed, formatted."""
    text = bundle.get("text/plain")
    if text is None:
        raise DownloadError("a {glue:text} value has no text/plain")
    text = "".join(text) if isinstance(text, list) else text
    try:
        value = ast.literal_eval(text)
    except (SyntaxError, ValueError):
        value = text
    if not spec:
        return str(value)
    kind = spec[-1]
    if kind in "bcdoxX":
        value = int(value)
    elif kind in "eEfFgGn%":
        value = float(value)
    elif kind == "s":
        value = str(value)
    return format(value, spec)


class Page:
    """What the Markdown rules need to know about one page.

    glue: {key: mimebundle}; resolve(role, target) -> (text, url) or None for a cross-reference;
    extlinks: Sphinx's {role: (url pattern, caption pattern)}; source_dir: the folder of the page's
    source (what a literalinclude path is relative to); language: "es" or "en".
    """

    def __init__(self, language, glue=None, resolve=None, extlinks=None, source_dir="."):
        self.language, self.glue = language, glue or {}
        self.resolve = resolve or (lambda role, target: None)
        self.extlinks, self.source_dir = extlinks or {}, Path(source_dir)
        self.attachments = {}

    def value(self, key):
        if key not in self.glue:
            raise DownloadError(f"the page quotes the glued value {key!r}, which no cell glued")
        return self.glue[key]


# ---------------------------------------------------------------- inline: roles

def _role(page, role, content):
    if role in GLUE_ROLES:
        key, _, spec = content.partition(":") if role == "glue:text" else (content, "", "")
        return glued_text(page.value(key.strip()), spec.strip())
    if role == "math":
        return f"${content}$"
    explicit = EXPLICIT_TITLE.match(content)
    title, target = (explicit["title"], explicit["target"]) if explicit else (None, content)
    if role in CROSS_REFERENCES:
        found = page.resolve(role, target.strip())
        if found is None:
            return title or target
        text, url = found
        return f"[{title or text}]({url})"
    if role in page.extlinks:
        url, caption = page.extlinks[role]
        return f"[{title or (caption % target if caption else target)}]({url % target})"
    return title or content  # any other role: its text


def inline(page, text):
    """Roles replaced (glued values pasted, references as links); code spans left as they are."""
    def replace(match):
        return match[0] if match["code"] else _role(page, match["role"], match["content"])
    return INLINE.sub(replace, text)


# ---------------------------------------------------------------- blocks: directives

def _closing(lines, start, fence):
    """Index of the line that closes the fence opened at lines[start]."""
    for i in range(start + 1, len(lines)):
        stripped = lines[i].strip()
        if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
            return i
    return len(lines)  # an unclosed fence runs to the end (CommonMark)


def _options(body):
    """({option: value}, the lines after the options)."""
    options, i = {}, 0
    while i < len(body) and OPTION.match(body[i].strip()):
        found = OPTION.match(body[i].strip())
        options[found["key"]] = found["value"] or ""
        i += 1
    while i < len(body) and not body[i].strip():
        i += 1
    return options, body[i:]


def _literalinclude(page, argument, options):
    from sphinx.directives.code import LiteralIncludeReader

    wanted = {k: v for k, v in options.items()
              if k in {"pyobject", "lines", "start-at", "start-after", "end-at", "end-before", "prepend", "append"}}
    if "dedent" in options:
        wanted["dedent"] = int(options["dedent"]) if options["dedent"].strip() else None
    reader = LiteralIncludeReader(page.source_dir / argument, wanted, types.SimpleNamespace(source_encoding="utf-8"))
    text, _ = reader.read()
    return _code_block(options.get("language", ""), text)


def _code_block(language, text):
    fence = "```"
    while fence in text:
        fence += "`"
    return [f"{fence}{language}", *text.rstrip("\n").split("\n"), fence]


def _glue_block(page, name, key, options, caption):
    if key == STAMP_KEY:
        return []  # the run stamp: the build's date and time, page furniture
    bundle = page.value(key)
    images = [m for m in bundle if m.startswith("image/")]
    out = []
    if options.get("name"):
        out += [f'<a id="{options["name"]}"></a>', ""]
    if images:
        mime = images[0]
        filename = f"{key}.{mime.split('/')[1].split('+')[0]}"
        page.attachments[filename] = {mime: bundle[mime]}
        alt = options.get("alt", key).replace("[", "(").replace("]", ")")
        out.append(f"![{alt}](attachment:{filename})")
    elif "text/html" in bundle:
        html = bundle["text/html"]
        out.append("".join(html) if isinstance(html, list) else html)
    elif "text/markdown" in bundle:
        markdown = bundle["text/markdown"]
        out += markdown_lines(page, ("".join(markdown) if isinstance(markdown, list) else markdown).split("\n"))
    else:
        out.append(glued_text(bundle))
    if caption and name == "glue:figure":
        out += [""] + markdown_lines(page, caption)
    return out


def _directive(page, name, argument, body):
    """The Markdown lines of one MyST directive (its body already split from its fences)."""
    options, content = _options(body)
    title = inline(page, argument.strip())
    if name in GLUE_DIRECTIVES:
        return _glue_block(page, name, argument.strip(), options, content)
    if name == "literalinclude":
        return _literalinclude(page, argument.strip(), options)
    if name in CODE_DIRECTIVES:
        return _code_block(argument.strip(), "\n".join(content))
    inner = markdown_lines(page, content)
    admonitions = TEXT[page.language]["admonitions"]
    if name == "admonition" or name in admonitions:
        heading = title or admonitions.get(name, "")
        quoted = [f"> **{heading}**", ">"] if heading else []
        return quoted + [f"> {line}".rstrip() for line in inner]
    if name == "dropdown":
        return [f"<details><summary>{as_html(title)}</summary>", "", *inner, "", "</details>"]
    if name in TAB_DIRECTIVES:
        return [f"**{title}**", "", *inner]
    if name in TAB_CONTAINERS:
        return inner
    # any other directive: its content, under its argument in bold
    return ([f"**{title}**", ""] if title else []) + inner


def as_html(text):
    """Inline Markdown as HTML, for an HTML element's text (a <summary>), where Markdown is not
    rendered: code spans and links."""
    def code(match):
        return f"<code>{html.escape(match['text'])}</code>"
    text = re.sub(r"(`+)(?P<text>.+?)\1", code, text)
    return MARKDOWN_LINK.sub(lambda m: f'<a href="{html.escape(m[2])}">{m[1]}</a>', text)


def _definition_lists(lines):
    """MyST's definition lists (`term` then `: definition`) as bullet lists: `- **term**: ...`."""
    out = []
    for line in lines:
        if line.startswith(": ") and out and out[-1].strip() and not out[-1].startswith(("- **", "  ")):
            out[-1] = f"- **{out[-1].strip()}**: {line[2:]}"
        else:
            out.append(line)
    return out


def _prose(page, lines):
    text = inline(page, "\n".join(lines)).split("\n")
    out = []
    for line in text:
        label = LABEL.match(line)
        out.append(f'<a id="{label["label"]}"></a>' if label else line)
    return _definition_lists(out)


def markdown_lines(page, lines):
    """MyST Markdown lines as Markdown that Jupyter renders (the rules: this module's docstring)."""
    out, prose, i = [], [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening or opening["fence"][0] == "~" and "{" in opening["rest"]:
            prose.append(lines[i])
            i += 1
            continue
        out += _prose(page, prose)
        prose = []
        end = _closing(lines, i, opening["fence"])
        indent = opening["indent"]
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[i + 1:end]]
        directive = DIRECTIVE.match(opening["rest"].strip())
        if directive:
            out += [indent + line if line else line
                    for line in _directive(page, directive["name"], directive["argument"], body)]
        else:  # a plain code block: as it is
            out += lines[i:end + 1]
        i = end + 1
    return out + _prose(page, prose)


def markdown(page, text):
    lines = markdown_lines(page, text.split("\n"))
    squeezed = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))  # what a dropped block leaves
    return squeezed.strip("\n")


# ---------------------------------------------------------------- the notebook

def tags(cell):
    return list(cell.get("metadata", {}).get("tags", []))


def kept_cells(notebook):
    """The cells a reader gets: all but those tagged remove-cell (the book's setup and guards)."""
    return [cell for cell in notebook.cells if REMOVE_CELL not in tags(cell)]


def title(notebook):
    """The page's title: its first heading (book.pages: every executed page has a # title)."""
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.split("\n"):
                if line.startswith("# "):
                    return line[2:].strip()
    raise DownloadError("the page has no # title")


def plain(text):
    """Markdown inline text as plain text (links as their text)."""
    return MARKDOWN_LINK.sub(r"\1", text)


def notebook_download(notebook, page, url):
    """The executed notebook a reader downloads, as the text of an .ipynb file.

    notebook: the page's notebook with this build's outputs; page: a Page; url: the published page.
    """
    glue = glue_values(notebook) if not page.glue else page.glue
    page.glue = glue
    cells = []
    for cell in kept_cells(notebook):
        cell_tags = tags(cell)
        metadata = {"tags": cell_tags} if cell_tags else {}
        if cell.cell_type == "markdown":
            page.attachments = {}
            new = nbformat.v4.new_markdown_cell(markdown(page, cell.source), metadata=metadata)
            if page.attachments:
                new.attachments = dict(sorted(page.attachments.items()))
            if not new.source:
                continue  # only the run stamp was there
        elif cell.cell_type == "code":
            outputs = [] if REMOVE_OUTPUT in cell_tags else merged_streams(
                [output for output in cell.get("outputs", []) if not output.get("metadata", {}).get("scrapbook")])
            new = nbformat.v4.new_code_cell(cell.source, metadata=metadata, outputs=outputs,
                                            execution_count=cell.get("execution_count"))
        else:
            new = nbformat.v4.new_raw_cell(cell.source, metadata=metadata)
        cells.append(new)
    name = title(notebook)
    note = TEXT[page.language]["note"].format(title=plain(inline(page, name)), url=url)
    cells.insert(1 if cells and cells[0].cell_type == "markdown" else 0, nbformat.v4.new_markdown_cell(note))
    for number, cell in enumerate(cells, 1):
        cell.id = f"cell-{number}"
    out = nbformat.v4.new_notebook(cells=cells, metadata=_metadata(notebook))
    out.nbformat_minor = max(out.nbformat_minor, NBFORMAT_MINOR)
    nbformat.validate(out)
    return nbformat.writes(out) + "\n"


def merged_streams(outputs):
    """A cell's outputs with all its stdout in one stream output and all its stderr in another, at
    the place of its first stream, stdout first (as the page shows them, nb_merge_streams): how a
    stream's text arrives in chunks, and how stdout and stderr interleave, differ from run to run."""
    texts, out = {}, []
    for output in outputs:
        if output["output_type"] != "stream":
            out.append(copy.deepcopy(output))
            continue
        if not texts:
            out.append("streams")  # their place
        text = output["text"]
        texts[output["name"]] = texts.get(output["name"], "") + ("".join(text) if isinstance(text, list) else text)
    streams = [nbformat.v4.new_output("stream", name=name, text=texts[name]) for name in ("stdout", "stderr")
               if name in texts]
    return [item for output in out for item in (streams if output == "streams" else [output])]


def _metadata(notebook):
    kernelspec = dict(notebook.metadata.get("kernelspec", {}))
    kernelspec.setdefault("language", "python")
    metadata = {"kernelspec": kernelspec}
    if "language_info" in notebook.metadata:
        metadata["language_info"] = dict(notebook.metadata["language_info"])
    return metadata


# ---------------------------------------------------------------- the script

def _string_continuations(code):
    """The numbers (1-based) of the lines that continue a multi-line string: indenting them would
    change the string."""
    inside = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and isinstance(getattr(node, "value", ""), str):
            inside.update(range(node.lineno + 1, node.end_lineno + 1))
    return inside


def expected_error_block(code, language):
    """A cell that raises on purpose, as script lines: it runs inside try/except, prints the error
    and goes on (and says so when it did not raise)."""
    words = TEXT[language]
    keep = _string_continuations(code)
    body = [line if number in keep or not line.strip() else "    " + line
            for number, line in enumerate(code.rstrip("\n").split("\n"), 1)]
    block = [f"# {words['lesson']}", "try:", *body,
             "except Exception as error:",
             f"    print({words['expected']!r}, f\"{{type(error).__name__}}: {{error}}\")",
             "else:",
             f"    print({words['not_raised']!r})"]
    wrapped = ast.parse("\n".join(block))
    assert ast.dump(ast.parse(code)) == ast.dump(ast.Module(body=wrapped.body[0].body, type_ignores=[])), \
        "wrapping the cell in try/except changed its code"
    return block


def script_download(notebook, page, url):
    """The page's code as one plain Python script (the text of a .py file)."""
    words = TEXT[page.language]
    name = plain(inline(page, title(notebook)))
    header = words["script_header"].format(title=name, url=url)
    out = ["# " + line for line in header.split("\n")]
    section = None
    heading = name
    for cell in kept_cells(notebook):
        if cell.cell_type == "markdown":
            for line in cell.source.split("\n"):
                found = HEADING.match(line)
                if found:
                    heading = plain(inline(page, found["text"]))
            continue
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        marker = f"# %% {heading}" if heading != section else "# %%"
        section = heading
        code = cell.source.rstrip("\n")
        lines = expected_error_block(code, page.language) if RAISES in tags(cell) else code.split("\n")
        out += ["", "", marker, *lines]
    return "\n".join(out) + "\n"
