"""python -m execbook check: each mistake an author makes, named at the file and line they wrote, on
small synthetic books (tmp_path/docs/{es,en}); and the book itself has none."""

import os
import re
import subprocess
import sys

import pytest
from conftest import own_packages

from execbook import config, lint, source

GLOSSARY = {
    "es": "(glossary)=\n# Glosario\n\n```{glossary}\ntensor guardado\n  Un tensor.\n```\n",
    "en": "(glossary)=\n# Glossary\n\n```{glossary}\nsaved tensor\n  A tensor.\n```\n",
}
PAGE = """---
file_format: mystnb
---
(phase-25-p)=
# {title}

Un {term}`TERM` y {ref}`phase-25-p`.

```{code-cell} ipython3
:load: EXAMPLES/symptom_backward.py
```

## Resumen

Texto.

```{code-cell} ipython3
:load: EXAMPLES/symptom_forward.py
```
"""


@pytest.fixture
def book(tmp_path):
    """write(lang, page, text) into a synthetic docs tree that passes the check as it starts."""
    docs = tmp_path / "docs"
    examples = os.path.relpath(config.EXAMPLES, docs / "es")

    def write(lang, page, text):
        path = docs / lang / f"{page}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("EXAMPLES", examples), "utf-8")
        return path

    for lang, term in (("es", "tensor guardado"), ("en", "saved tensor")):
        write(lang, "glossary", GLOSSARY[lang])
        write(lang, "p", PAGE.replace("TERM", term).replace("{title}", "P"))
    write.docs = docs  # type: ignore[attr-defined]
    write.problems = lambda: [str(p) for p in lint.problems(docs)]  # type: ignore[attr-defined]
    return write


def page(lang, edit=lambda t: t):
    term = {"es": "tensor guardado", "en": "saved tensor"}[lang]
    return edit(PAGE.replace("TERM", term).replace("{title}", "P"))


def test_a_good_book_has_no_problem(book):
    assert book.problems() == []
    book("es", "p", page("es", lambda t: t + "\n```python\n# a comment, not a heading\n```\n"))
    assert book.problems() == [], "a comment in a fence is no heading: the languages still pair up"


def test_the_book_itself_has_no_problem():
    assert [str(p) for p in lint.problems()] == []


def unclosed_load(text):
    return text.replace(":load: EXAMPLES/symptom_backward.py\n```\n", ":load: EXAMPLES/symptom_backward.py\n")


def test_an_unclosed_load_cell_closed_by_a_later_fence_is_named_where_it_opens(book):
    for lang in ("es", "en"):
        book(lang, "p", page(lang, unclosed_load))
    found = book.problems()
    assert (
        "docs/es/p.md:9: the ``` fence opened here ({code-cell} ipython3) is closed only at line 18, after "
        "another block opens at line 16 → close it with a ``` line before line 16" in found
    )
    assert any(p.startswith("docs/en/p.md:9: the ``` fence opened here") for p in found)
    assert not any("heading" in p for p in found), "a broken fence is named, not the sections it hides"


def test_an_unclosed_fence_in_one_language_is_named_not_the_sections_it_hides(book):
    book("en", "p", page("en", lambda t: t.rstrip("\n").removesuffix("```")))
    assert book.problems() == [
        "docs/en/p.md:17: the ``` fence opened here ({code-cell} ipython3) is never "
        "closed: the rest of the page is inside it → add a ``` line where the block ends"
    ]


def test_a_load_cell_with_a_body(book):
    for lang in ("es", "en"):
        book(lang, "p", page(lang, lambda t: t.replace("symptom_backward.py\n", "symptom_backward.py\nx = 1\n")))
    assert any(
        p.startswith("docs/es/p.md:11: the cell that loads ") and "has a body of its own" in p for p in book.problems()
    )


def test_a_code_cell_written_on_the_page(book):
    for lang in ("es", "en"):
        book(lang, "p", page(lang, lambda t: t + "\n```{code-cell} ipython3\nprint(1)\n```\n"))
    found = book.problems()
    load = os.path.relpath(config.EXAMPLES / "p.py", book.docs / "es")
    assert (
        "docs/es/p.md:21: a code cell written on the page (a page holds no code of its own) → put the code in "
        f"examples/p.py, give it an entry [p] in examples/cases.toml and load it: :load: {load}" in found
    ), found


def test_a_load_of_an_undeclared_or_missing_example(book):
    for lang in ("es", "en"):
        book(lang, "p", page(lang, lambda t: t.replace("symptom_forward", "no_such_example")))
    assert any(p.startswith("docs/es/p.md:18: the cell loads ") and "does not exist" in p for p in book.problems())


def test_the_mirror_names_pages_labels_headings_figures_and_cells(book):
    book("es", "extra", "(only-es)=\n# E\n")
    book(
        "en",
        "p",
        page(
            "en",
            lambda t: (
                t.replace("## Resumen", "### Summary").replace("(phase-25-p)=", "(phase-25-p)=\n(phase-25-en-only)=")
                + "\n```{glue:figure} curve_en\n```\n"
            ),
        ),
    )
    found = book.problems()
    assert any(p.startswith("docs/es/extra.md:1: a page with no counterpart in docs/en") for p in found)
    assert not any("only-es" in p for p in found), "the page is named, not each of its labels"
    assert (
        "docs/en/p.md:5: label 'phase-25-en-only' is missing in docs/es → add (phase-25-en-only)= at the "
        "same place of docs/es/p.md" in found
    )
    assert any(
        p.startswith("docs/en/p.md:14: heading ### Summary does not match its counterpart docs/es/p.md:13 (## Resumen)")
        for p in found
    )
    assert any(
        p.startswith("docs/en/p.md:22: figure {glue:figure} curve_en has no counterpart in docs/es/p.md") for p in found
    )


def test_code_cells_that_differ_between_languages(book):
    book("en", "p", page("en", lambda t: t.replace("symptom_forward", "symptom_backward")))
    examples = os.path.relpath(config.EXAMPLES, book.docs / "es")
    assert any(
        p.startswith(
            f"docs/en/p.md:17: code cell {examples}/symptom_backward.py, tags [] does not match its counterpart "
        )
        and p.endswith(
            f"docs/es/p.md:17 ({examples}/symptom_forward.py, tags []) → keep the code cells of both languages "
            "identical (one execution serves both)"
        )
        for p in book.problems()
    )


def test_glossaries_that_do_not_pair_up(book):
    book("en", "glossary", GLOSSARY["en"].replace("saved tensor\n", ":sorted:\n\nsaved tensor\nsaved\n"))
    assert [p for p in book.problems() if "glossary entry" in p] == [
        "docs/en/glossary.md:7: glossary entry saved tensor / saved does not match its counterpart "
        "docs/es/glossary.md:5 (tensor guardado) → the entries pair up in source order, term by term: give both "
        "the same number of terms"
    ]


def test_shown_code_too_wide_or_too_long(tmp_path, monkeypatch):
    wide = tmp_path / "wide.py"
    wide.write_text("x = 1\n" + "y = '" + "a" * 80 + "'\n# %% hidden checks\n" + "z = '" + "b" * 90 + "'\n")
    assert [str(p) for p in lint.width_problems([wide])] == [
        f"{source.shown_path(wide)}:2: a line the page shows is 86 columns wide (at most 80) → break it, or "
        "shorten its names"
    ]


def test_included_code_too_wide_is_named_at_its_line_in_the_included_file(tmp_path):
    module = tmp_path / "mod.py"
    wide = "x = '" + "a" * 80 + "'"
    module.write_text(
        f"class A:\n    def f(self):\n        {wide}\n        if a:\n            {wide}\n        return 1\n"
    )
    page = tmp_path / "p.md"
    include = "```{literalinclude} mod.py\n:pyobject: A.f\n:start-after: if a:\n:end-before: return\n:dedent:\n```\n"
    page.write_text("# T\n\n" + include + "\n```{literalinclude} missing.py\n```\n")
    found = [str(p) for p in lint.include_problems(source.read(page, "p.md"))]
    assert found == [
        f"{source.shown_path(module)}:5: a line p.md:3 includes is {len(wide)} columns wide (at most 80) → break it",
        "p.md:10: it includes missing.py, which does not exist → correct the path",
    ]


def test_the_command_answers_in_one_line_per_problem_and_fails(book, tmp_path):
    for lang in ("es", "en"):
        book(lang, "p", page(lang, unclosed_load))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from execbook import lint; "
            f"found = lint.problems(Path({str(book.docs)!r})); print(*found, sep='\\n')",
        ],
        capture_output=True,
        text=True,
        cwd=config.REPO,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout.count("\n") == 2, done.stdout + done.stderr
    real = subprocess.run(
        [sys.executable, "-m", "execbook", "check"], capture_output=True, text=True, cwd=config.REPO, timeout=60
    )
    assert real.returncode == 0 and real.stdout.startswith("execbook: check: ok"), real.stdout + real.stderr


@pytest.mark.e2e  # a copy of the repository, and a build
def test_a_build_with_a_broken_fence_fails_first_naming_the_lines_and_publishes_nothing(tmp_path):
    """The issue's first mistake, in a whole (cold) copy: an unclosed :load: cell in both languages.
    The build stops at the check, before executing anything."""
    from conftest import copy_repository

    repo = copy_repository(tmp_path / "repo", keep_build=False)
    lines = {}
    for lang in config.LANGUAGES:
        page = repo / "docs" / lang / "breaks" / "25-inplace-safe.md"
        text = page.read_text("utf-8").split("\n")
        at = next(i for i, line in enumerate(text) if line.startswith(":load:"))
        del text[at + 1]  # the cell's closing fence
        page.write_text("\n".join(text), "utf-8")
        lines[lang] = at  # the opening fence's line number (1-based: the line above :load:)
    done = subprocess.run(
        [sys.executable, "-m", "execbook", "build"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=own_packages(repo)),
    )
    assert done.returncode == 1
    last = done.stderr.strip().split("\n")[-3:]
    for lang in config.LANGUAGES:
        assert any(
            line.startswith(f"docs/{lang}/breaks/25-inplace-safe.md:{lines[lang]}: the ``` fence opened here")
            for line in last
        ), last
    assert "docs: 2 problem(s) in the sources" in last[-1]
    assert "executing" not in done.stdout and not (repo / "docs" / "_build" / "html").exists()


# --- what the prose cites, and what the check can read (front matter, encodings, Python)


def test_a_role_that_names_nothing_is_named_at_its_line_with_the_closest_name(book):
    cites = (
        "Bien: {term}`Saved  Tensor`, {ref}`la p <phase-25-p>`, {doc}`/glossary`.\n"
        "Mal: {ref}`phase-25-q` y\n{term}`saved tensors`, {doc}`glosary`,\nluego {numref}`nothing-like-it`.\n"
    )
    book("en", "p", page("en", lambda t: t.replace("Texto.\n", "Texto.\n\n" + cites)))
    found = [p for p in book.problems() if "names no" in p]
    assert found == [
        "docs/en/p.md:18: {ref}`phase-25-q` names no label of the en pages → did you mean `phase-25-p`?",
        "docs/en/p.md:19: {doc}`glosary` names no page of the en pages → did you mean `glossary`?",
        "docs/en/p.md:19: {term}`saved tensors` names no term of the en pages → did you mean `saved tensor`?",
        "docs/en/p.md:20: {numref}`nothing-like-it` names no label of the en pages → correct it, or write that label",
    ]


def test_front_matter_that_yaml_cannot_read_is_named_at_its_line(book):
    bad = "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n display_name: Python 3\n---\n"
    book("es", "p", page("es", lambda t: bad + t.split("---\n", 2)[2]))
    assert [p for p in book.problems() if "front matter" in p] == [
        "docs/es/p.md:5: its front matter is not YAML: expected <block end>, but found '<block mapping start>' "
        "(while parsing a block mapping from line 2) → correct that line"
    ]
    # what is left open (a key without its colon, a quote, a [ list) is named where it opened, not below
    for wrong, what in (
        ("kernelspec\n  name: python3\n", "could not find expected ':' (while scanning a simple key)"),
        ('title: "A page\nkernelspec: {}\n', "found unexpected end of stream (while scanning a quoted scalar)"),
        ("tags: [a, b\nkernelspec: {}\n", "expected ',' or ']', but got ':' (while parsing a flow sequence)"),
    ):
        book(
            "es",
            "p",
            page("es", lambda t, wrong=wrong: "---\nfile_format: mystnb\n" + wrong + "---\n" + t.split("---\n", 2)[2]),
        )
        found = [p for p in book.problems() if "front matter" in p]
        assert found == [f"docs/es/p.md:3: its front matter is not YAML: {what} → correct that line"], found
    book("es", "p", page("es", lambda t: t.replace("---\n(phase", "(phase", 1)))
    assert "docs/es/p.md:1: the front matter opened here is never closed → close it with a --- line" in book.problems()


def test_a_page_that_is_not_utf8_is_named_at_its_line_and_byte(book):
    path = book("en", "p", page("en"))
    text = path.read_bytes()
    path.write_bytes(text.replace(b"Texto.", b"Texto \xe9."))
    byte = text.index(b"Texto.") + 6
    assert book.problems() == [
        f"docs/en/p.md:15: byte 0xe9 (column 7, byte {byte} of the file) is not UTF-8 → save the file as UTF-8"
    ]


@pytest.mark.parametrize(
    "code, line, what",
    [
        ("x = 1\nif x\n    y = 2\n", 2, "expected ':' (column 5)"),
        ("x = 1\n\nreturn x\n", 3, "'return' outside function (column 1)"),
        ("x = 1\nawait something()\n", None, None),  # a notebook cell may await at its top level
    ],
)
def test_an_example_that_python_cannot_compile_is_named_at_its_line(tmp_path, code, line, what):
    example = tmp_path / "example.py"
    example.write_text(code + "# %% hidden checks\nassert x == 1\n", "utf-8")
    found = source.unreadable(example, python=True)
    expected = f"{source.shown_path(example)}:{line}: Python cannot compile it: {what} → correct the code at that line"
    assert (str(found) if found else None) == (expected if line else None)


def test_an_example_that_is_not_utf8_is_named_at_its_line(tmp_path):
    example = tmp_path / "example.py"
    example.write_bytes(b"x = 1\ny = '\xff'\n")
    assert str(source.unreadable(example, python=True)) == (
        f"{source.shown_path(example)}:2: byte 0xff (column 6, byte 11 of the file) is not UTF-8 → save the file "
        "as UTF-8"
    )


def test_authoring_lists_each_page_with_its_own_label():
    rows = re.findall(r"^\| `([\w/-]+)` \| `([\w-]+)` \|$", (config.REPO / "AUTHORING.md").read_text("utf-8"), re.M)
    assert len(rows) >= 10, "AUTHORING.md lists the pages and their labels"
    for language in config.LANGUAGES:
        sources = source.tree_sources(config.DOCS, language)
        assert [(page, sources[page].labels[0][1]) for page, _ in rows] == rows, f"docs/{language}"
