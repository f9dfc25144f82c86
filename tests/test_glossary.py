"""One term per concept (issue 10 item 5): the glossaries, the {term} citations and the banned variants.

- every {term}`x` / {term}`text <x>` on a page names a term of its own tree's glossary;
- both glossaries define the same number of terms (and the same page label, which the mirror check checks);
- the prose of every Spanish page, and every `# es:` comment of the examples, avoids the forms that
  the Spanish style sheet (docs/style-es.md) rejects; English prose never calls the first draft
  "the brief".
Prose means what a reader reads: fenced code, inline code, labels, role targets and directive
options are left out (an :alt: text is prose and stays in).
"""

import re

import pytest

from execbook.config import DOCS, LANGUAGES
from execbook.source import MARKDOWN, PROSE_DIRECTIVES, glossary_entries, page_sources, parse

AUTOLINK = re.compile(r"https?://\S+")
MENTION = re.compile(r"«[^»]*»")  # a form quoted in «» is mentioned, not used
# Roles whose content is text the reader sees (the rest name a label, a glued key, a phase...).
TEXT_ROLES = {"term", "ref", "doc", "numref", "abbr"}
UNTITLED = {"figure", "glossary", "glue:figure", "tab-set", "tabs"}  # prose directives without a title
BREAKS = {"softbreak", "hardbreak"}


def normalize(term):
    """How Sphinx matches a term: case-insensitively, whitespace collapsed."""
    return " ".join(term.split()).lower()


def inlines(text):
    """(0-based line, inline token) of every piece of prose of a page, as myst-parser reads it:
    paragraphs, headings, table cells, the bodies of prose directives, their titles and :alt: texts."""
    source = parse(text)
    found = [(token.map[0], token) for token in source.tokens if token.type == "inline" and token.map]
    for block in source.blocks:
        if block.directive in PROSE_DIRECTIVES - UNTITLED:
            found += [(block.opening - 1, token) for token in MARKDOWN.parseInline(block.info.partition("}")[2])]
        if block.directive in PROSE_DIRECTIVES and "alt" in block.options:
            line, alt = block.options["alt"]
            found += [(line - 1, token) for token in MARKDOWN.parseInline(alt)]
    return found


def pieces(inline):
    """(child, its line within the inline token, the line breaks inside it) of an inline token's
    children: markdown-it turns the line breaks inside a code span or a role into spaces, the
    token's source keeps them."""
    raw, cursor, line = inline.content, 0, 0
    for child in inline.children or []:
        breaks = 0
        if child.type in ("code_inline", "myst_role"):
            name = "" if child.type == "code_inline" else f"{{{child.meta['name']}}}"
            start = raw.find(name + "`", cursor)
            after = start + len(name)
            ticks = "`" * (len(raw[after:]) - len(raw[after:].lstrip("`")))
            end = raw.find(ticks, after + len(ticks)) + len(ticks)
            if start >= 0 and end >= after:
                breaks, cursor = raw.count("\n", start, end), end
        yield child, line, breaks
        line += breaks + (child.type in BREAKS)


def target(content):
    """A role's target: `text <target>` or the whole content."""
    text, _, explicit = content.rpartition("<")
    return explicit[:-1] if text and content.endswith(">") else content


def reader_text(inline):
    """An inline token's text as the reader reads it, line for line."""
    out = []
    for child, _, breaks in pieces(inline):
        if child.type in BREAKS:
            out.append("\n")
        elif child.type in ("text", "image"):
            out.append(child.content)
        elif child.type == "code_inline":  # a marker, so that "bajo `torch.no_grad()`" is seen
            out.append(CODE)
        elif child.type == "myst_role" and child.meta["name"] in TEXT_ROLES:
            content = child.content
            if target(content) != content:
                out.append(content.rpartition("<")[0].rstrip())
            elif child.meta["name"] in ("term", "abbr"):
                out.append(content)
        out.append("\n" * breaks)
    return "".join(out)


def prose(text):
    """The page's text as the reader reads it, line for line (line numbers as in the source)."""
    lines = [""] * len(text.split("\n"))
    for first, inline in inlines(text):
        for number, line in enumerate(reader_text(inline).split("\n"), first):
            lines[number] = f"{lines[number]} {line}".strip()
    text = AUTOLINK.sub("", "\n".join(lines))
    return MENTION.sub(lambda m: "\n" * m[0].count("\n"), text)


def glossary_terms(text):
    """The terms a page's {glossary} block defines (alias lines included), normalized."""
    return [normalize(term) for entry in glossary_entries(parse(text)) for _, term in entry]


# (pattern, what to write instead): the forms a Spanish page never uses, read from the Spanish style
# sheet (docs/style-es.md: one row per concept, its rejected forms in the last column).
STYLE_SHEET = DOCS / "style-es.md"
WORD = r"(?<![\w-])"  # no letter, digit or hyphen before (so "recorrida" is not "corrida")
END = r"(?![\w=-])"  # nor a letter, digit, hyphen or "=" after ("bypass=hooks" is code)
CODE = "\u27e8code\u27e9"  # what prose() leaves of an inline code span


def form_pattern(form):
    """A rejected form of the style sheet as a regular expression: a space is any whitespace, a/b
    either word, a trailing * any ending, CODE an inline code span; whole words only."""
    words = []
    for word in form.split():
        if word == "CODE":
            words.append(re.escape(CODE))
            continue
        star = word.endswith("*")
        options = "|".join(re.escape(w) for w in word.rstrip("*").split("/"))
        words.append(f"(?:{options})" + (r"\w*" if star else ""))
    return WORD + r"\s+".join(words) + END


def style_rules(sheet):
    """[(pattern, what to write instead)] from the style sheet's table."""
    rules = []
    for line in sheet.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("Concept", "---"):
            continue
        for form in re.findall(r"`([^`]+)`", cells[2]):
            rules.append((form_pattern(form), f"«{cells[1]}» ({cells[0]}, docs/style-es.md)"))
    return rules


SPANISH_BANNED = style_rules(STYLE_SHEET.read_text(encoding="utf-8"))
ENGLISH_BANNED = [
    (r"\b(?:(?:design|the)\s+brief(?:'s)?|brief's)(?![\w-])", "the course's first draft of this page"),
]
BANNED = {
    "es": [(re.compile(p, re.I), use) for p, use in SPANISH_BANNED],
    "en": [(re.compile(p, re.I), use) for p, use in ENGLISH_BANNED],
}


def banned_variants(text, language):
    """[(line number, variant found, what to use)] in the page's prose."""
    text = prose(text)
    found = []
    for pattern, use in BANNED[language]:
        for match in pattern.finditer(text):
            found.append((text.count("\n", 0, match.start()) + 1, " ".join(match[0].split()), use))
    return sorted(found)


def pages(language):
    return sorted(page_sources(DOCS / language).items())


# ---- the helpers themselves (so that the checks below can fail) ----


def test_prose_drops_code_labels_targets_and_options():
    page = "\n".join(
        [
            "---",
            "file_format: mystnb",
            "---",
            "(phase-25-break)=",
            "# Rotura",
            "Texto con `h.break_()` y {ref}`phase-25-break` y {glue:text}`sólo`.",
            "```{code-cell} ipython3",
            ":load: ../../examples/break.py",
            "x = 1  # sólo",
            "```",
            ":::{dropdown} Pista sólo",
            ":class: break",
            "Un desfasado.",
            ":::",
            "```{glue:figure} key",
            ":alt: El residual in-place",
            ":name: fig-break",
            "Pie.",
            "```",
            "[ganchos de verdad](https://example.org/break)",
        ]
    )
    lines = prose(page).split("\n")
    assert len(lines) == len(page.split("\n"))
    assert lines[4] == "Rotura"
    assert "break" not in prose(page).replace("Rotura", "")
    assert lines[10].strip() == "Pista sólo"  # a directive's title is prose
    assert lines[12] == "Un desfasado."
    assert lines[15].strip() == "El residual in-place"  # :alt: is prose
    assert lines[16] == "" and lines[8] == "" and lines[11] == ""
    assert lines[19] == "ganchos de verdad"


@pytest.mark.parametrize(
    "text, found",
    [
        ("Sólo se comprueba.", ["sólo"]),
        ("Esto solo se comprueba.", []),
        ("Éste es el paso.", ["éste"]),
        ("Este es el paso; ésta también.", ["ésta"]),
        ("con la forma del del mini-GPT", ["del del"]),
        ("Fuera de sitio (out-of-place)", ["fuera de sitio"]),
        ("escribe fuera de\nlugar", ["fuera de lugar"]),
        ("una operación en el sitio", ["en el sitio"]),
        ("(en español, «en el sitio»)", []),
        ("el primero caducado", ["caducado"]),
        ("un tensor guardado desfasado", []),
        ("un valor obsoleto", ["obsoleto"]),
        ("con ganchos identidad", ["ganchos"]),
        ("El documento de diseño dice", ["documento de diseño"]),
        ("el brief del curso", ["brief"]),
        ("El break en sí", ["break"]),
        ("una ruptura", ["ruptura"]),
        ("cada contador de versión", ["contador de versión"]),
        ("el contador de versiones", []),
        ("un paso hacia atrás", ["paso hacia atrás"]),
        ("tras 10 pasos hacia\natrás", ["pasos hacia atrás"]),
        ("el paso hacia adelante", ["paso hacia adelante"]),
        ("una pasada hacia atrás, un paso del optimizador", []),
        ("el nodo de backward de LayerNorm", ["nodo de backward"]),
        ("`backward()` y el nodo de la pasada hacia atrás", []),
        ("los bypass silenciosos", ["bypass"]),
        ("un baipás; `bypass=hooks`", []),
        ("Después lanza el paso", ["lanza el paso"]),
        ("la pasada hacia atrás lanza el error", []),
        ("escribir a través de `.data`", ["a través de"]),
        ("Ejecuta el script bajo el diagnosticador", ["bajo el diagnosticador"]),
        ("escribe bajo `torch.no_grad()`", ["bajo \u27e8code\u27e9"]),
        ("escribe dentro de `torch.no_grad()`", []),
        ("se queda con cada tensor mismo", ["tensor mismo"]),
        ("Un escaneo lee código", ["escaneo"]),
        ("la página de compatibilidad", ["página de compatibilidad"]),
        ("el camino directo se queda", ["camino directo se queda"]),
        ("la corrida B", ["corrida"]),
        ("la cinta, recorrida nodo a nodo", []),
        ("El residual es `h.add_(...)`.", ["el residual"]),
        ("el `add_` del residual", ["del residual"]),
        ("Incluso la residual in-place de la ejecución B", ["la residual"]),
        ("la conexión residual y el flujo residual", []),
        ("las conexiones residuales y la suma residual", []),
        ("`h.break_()` y `sólo`", []),
        ("{ref}`phase-25-inplace-break`", []),
        ("{term}`rotura <break>`", []),
        ("[rotura](https://example.org/break)", []),
    ],
)
def test_spanish_banned_variants_are_found(text, found):
    assert [variant.lower() for _, variant, _ in banned_variants(text, "es")] == found


@pytest.mark.parametrize(
    "text, found",
    [
        ("The design brief says", ["design brief"]),
        ("as the brief claims", ["the brief"]),
        ("The brief's other candidate breaks", ["The brief's"]),
        ("the design\nbrief's draft", ["design brief's"]),
        ("the brief", ["the brief"]),
        ("the course's first draft of this page, in brief", []),
        ("a `brief` variable", []),
    ],
)
def test_english_banned_variants_are_found(text, found):
    assert sorted(variant for _, variant, _ in banned_variants(text, "en")) == sorted(found)


def test_glossary_terms_are_read_like_sphinx():
    glossary = "```{glossary}\n:sorted:\n\nstale saved tensor\nstale\n  A saved tensor.\n\nview\n  A view.\n```\n"
    assert glossary_terms(glossary) == ["stale saved tensor", "stale", "view"]


# ---- the book ----


def glossary(language):
    return glossary_terms((DOCS / language / "glossary.md").read_text(encoding="utf-8"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_glossary_defines_each_term_once(language):
    terms = glossary(language)
    assert terms, f"docs/{language}/glossary.md defines no terms"
    assert len(terms) == len(set(terms)), sorted(t for t in terms if terms.count(t) > 1)


@pytest.mark.parametrize("language", LANGUAGES)
def test_pages_use_one_term_per_concept(language):
    found = [
        f"docs/{language}/{page}.md:{line}: «{variant}» -> {use}"
        for page, path in pages(language)
        for line, variant, use in banned_variants(path.read_text(encoding="utf-8"), language)
    ]
    assert not found, "forms the style sheet rejects (docs/style-es.md):\n" + "\n".join(found)


SPANISH_COMMENT = re.compile(r"^\s*# es: (.*)$")


def test_spanish_comments_of_the_examples_follow_the_style_sheet():
    """The `# es:` comments a Spanish page shows above an example's hidden checks."""
    found = []
    for path in sorted((DOCS.parent / "examples").glob("*.py")):
        shown = path.read_text(encoding="utf-8").split("\n# %% hidden checks")[0]
        for number, line in enumerate(shown.split("\n"), start=1):
            comment = SPANISH_COMMENT.match(line)
            if comment:
                found += [
                    f"examples/{path.name}:{number}: «{variant}» -> {use}"
                    for _, variant, use in banned_variants(comment[1], "es")
                ]
    assert not found, "forms the style sheet rejects (docs/style-es.md):\n" + "\n".join(found)


def test_the_style_sheet_rejects_forms():
    assert len(SPANISH_BANNED) >= 30, "docs/style-es.md: its table's last column lost its rejected forms"


# ---- the words the book's code shows a Spanish reader (figures, generated tables, glued phrases) ----

CODE_TOKEN = re.compile(r"\S*[._()\[\]=]\S*")  # torch.no_grad(), h.add_, bypass=hooks: code, not prose


def marked(text):
    """A plain string (a figure label, a table cell) with its code-like words made CODE, as prose()
    makes an inline code span, so that "bajo torch.no_grad()" reads as "bajo CODE"."""
    return CODE_TOKEN.sub(CODE, text)


def spanish_strings_of(source, name):
    """(file:line, text) of every string under an "es" key of a dict literal in Python source:
    the Spanish words of figures, tables and glued phrases, nested dicts included."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "es":
                    keys = {id(k) for d in ast.walk(value) if isinstance(d, ast.Dict) for k in d.keys}
                    found += [
                        (f"{name}:{text.lineno}", text.value)
                        for text in ast.walk(value)
                        if isinstance(text, ast.Constant) and isinstance(text.value, str) and id(text) not in keys
                    ]
    return found


def spanish_strings():
    """What the Spanish pages show that the code writes: the "es" strings of examples/ and
    phase25/ (figure titles and labels, table headers and verdicts, glued phrases) and the Spanish
    case names and checks of examples/cases.toml (the safe-case summary, the compatibility tables)."""
    import tomllib

    root = DOCS.parent
    found = []
    for path in sorted([*(root / "examples").glob("*.py"), *(root / "phase25").glob("*.py")]):
        found += spanish_strings_of(path.read_text(encoding="utf-8"), path.relative_to(root).as_posix())
    for name, entry in tomllib.loads((root / "examples" / "cases.toml").read_text(encoding="utf-8")).items():
        for key in ("case", "checks"):
            if "es" in entry.get(key, {}):
                found.append((f"examples/cases.toml [{name}] {key}", entry[key]["es"]))
    return found


def test_the_spanish_strings_are_found():
    texts = [text for _, text in spanish_strings()]
    assert len(texts) > 100, "the figures', tables' and phrases' Spanish words: none found?"
    assert any("pasada hacia atrás" in text for text in texts)
    source = 'W = {"es": {"t": "el grafo"}, "en": {"t": "the graph"}}'
    assert spanish_strings_of(source, "x.py") == [("x.py:1", "el grafo")]
    assert [v for _, v, _ in banned_variants(marked("conexión residual in-place bajo torch.no_grad()"), "es")] == [
        f"bajo {CODE}"
    ]


def test_figures_tables_and_glued_phrases_follow_the_style_sheet():
    """The Spanish words in figures, generated tables and glued phrases (not only in the prose)."""
    found = [
        f"{where}: «{variant}» -> {use}"
        for where, text in spanish_strings()
        for _, variant, use in banned_variants(marked(text), "es")
    ]
    assert not found, "forms the style sheet rejects (docs/style-es.md):\n" + "\n".join(found)
