"""Nothing broken is published (execbook.outputs), failures name the line the author wrote (the line
map of execbook.pages), and each example runs in a namespace of its own (execbook.kernel): on synthetic
pages, notebooks and examples, without a build."""

import asyncio
import os
import tempfile

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from execbook import build, cases, config, kernel, outputs, pages


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """write(name, code) -> an example of a scratch manifest that holds only it."""
    monkeypatch.setattr(cases.config, "EXAMPLES", tmp_path)
    declared = {}
    monkeypatch.setattr(cases, "manifest", lambda: declared)

    def write(name, code, **entry):
        (tmp_path / f"{name}.py").write_text(code, encoding="utf-8")
        declared[name] = cases.entry_case(name, entry or {"expect": "completes"})
        return declared[name]

    return write


NODE = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x.relu()\nprint('its node:', y.grad_fn)\nz = 1\n"


def notebook_with(output, name="node"):
    cell = new_code_cell("...", metadata={pages.EXAMPLE: name}, outputs=[output])
    return new_notebook(cells=[new_code_cell("_book.begin()"), cell, new_code_cell(f'_book.check("{name}")')])


def test_an_address_printed_by_an_example_is_named_at_its_line(scratch):
    scratch("node", NODE)
    printed = "its node: <ReluBackward0 object at 0x7f3a2b1c0d90>\n"
    notebook = notebook_with(new_output("stream", name="stdout", text=printed))
    found = outputs.unstable_outputs("breaks/p", notebook)
    assert len(found) == 1
    assert found[0].startswith(
        "breaks/p (es, en) · examples/node.py:4\n  its output shows a memory address, which no "
        "published page may hold: its node: <ReluBackward0 object at 0x7f3a2b1c0d90>\n  → "
    )


def test_a_path_of_the_build_machine_or_a_random_id_is_refused(scratch):
    scratch("node", "import uuid\nprint(uuid.uuid4())\nstr(__file__)\n")
    result = new_output(
        "execute_result", data={"text/plain": repr(str(config.REPO / "examples" / "node.py"))}, execution_count=1
    )
    assert (
        "examples/node.py:3\n  its output shows a path of the build machine"
        in outputs.unstable_outputs("p", notebook_with(result))[0]
    )
    stream = new_output("stream", name="stdout", text="id 1b4e28ba-2fa1-11d2-883f-0016d3cca427\n")
    found = outputs.unstable_outputs("p", notebook_with(stream))
    assert "examples/node.py:2\n  its output shows a random id" in found[0]


def test_stable_outputs_pass(scratch):
    scratch("node", NODE)
    fine = new_output("stream", name="stdout", text="its node: ReluBackward0, version 0, shape (2,), 0x10 flags\n")
    assert outputs.unstable_outputs("p", notebook_with(fine)) == []


PAGE = """---
file_format: mystnb
---
# T

Quoted: {glue:text}`median_en`, a {term}`saved tensor`.

```{code-cell} ipython3
:load: EXAMPLES/symptom_backward.py
```

```{glue:figure} curve_en
```
"""


def test_every_line_the_author_wrote_keeps_its_number_in_the_notebook_myst_nb_reads(tmp_path):
    page = tmp_path / "p.md"
    text = PAGE.replace("EXAMPLES", os.path.relpath(config.EXAMPLES, tmp_path)) + "\nSee {ref}`nowhere`.\n"
    notebook = pages.read(text, page)
    lines = text.split("\n")
    for cell, start in zip(notebook.cells, notebook.metadata["source_map"], strict=True):
        if cell.cell_type == "markdown":  # the author's text, at its line
            assert lines[start + 1 : start + 2 + cell.source.count("\n")] == cell.source.split("\n")
    shown = {
        c.metadata.get(pages.EXAMPLE): s for c, s in zip(notebook.cells, notebook.metadata["source_map"], strict=True)
    }
    assert lines[shown["symptom_backward"] - 1].startswith("```{code-cell}")  # the line after its fence


def test_an_example_does_not_see_the_names_an_earlier_one_defined(monkeypatch):
    monkeypatch.setattr(kernel, "_baseline", {"_book", "__name__"})
    namespace = {"_book": kernel, "__name__": "__main__", "_i3": "x", "Out": {}, "model": object(), "_tmp": 1}
    kernel.forget_example(namespace)
    assert set(namespace) == {"_book", "__name__", "_i3", "Out"}


def test_a_visible_cell_that_fails_is_not_called_hidden():
    failing = new_code_cell(
        "print(undefined)",
        metadata={},
        outputs=[new_output("error", ename="NameError", evalue="name 'undefined' is not defined", traceback=[])],
    )
    notebook = new_notebook(cells=[failing])
    error = type("E", (Exception,), {"ename": "NameError", "evalue": "name 'undefined' is not defined"})()
    assert "a cell the page shows failed: NameError" in build.explain("p", notebook, error)
    failing.metadata["tags"] = ["remove-cell"]
    assert "a hidden cell failed: NameError" in build.explain("p", notebook, error)


def test_outputs_of_a_built_page_json_round_trip():
    """The worker hands the executed notebook over as JSON: what it checks reads the same."""
    notebook = notebook_with(new_output("stream", name="stdout", text="fine\n"))
    assert nbformat.reads(nbformat.writes(notebook), as_version=4).cells[1].metadata[pages.EXAMPLE] == "node"


def glue_output(key, text):
    prefix = "application/papermill.record/"
    return new_output(
        "display_data", data={f"{prefix}text/plain": text}, metadata={"scrapbook": {"name": key, "mime_prefix": prefix}}
    )


def test_a_glued_value_that_holds_an_address_is_refused_too(scratch):
    scratch("node", NODE)
    found = outputs.unstable_outputs(
        "p", notebook_with(glue_output("node_en", "'<object at 0x7f3a2b1c0d90>'")), locate=False
    )
    assert len(found) == 1 and "examples/node.py\n  its output shows a memory address" in found[0]


def test_the_glued_values_that_changed_are_listed_per_language(tmp_path):
    from execbook import gluereport

    def built(median_es, median_en, extra=()):
        notebook = new_notebook(
            cells=[
                new_code_cell(
                    "x",
                    outputs=[
                        glue_output("median_es", repr(median_es)),
                        glue_output("median_en", repr(median_en)),
                        *extra,
                    ],
                )
            ]
        )
        return {"breaks/p": gluereport.glued(notebook)}

    values, text = tmp_path / "values.json", tmp_path / "changes.txt"
    assert gluereport.record(built("97,3 %", "97.3%"), values, text) == []
    assert text.read_text("utf-8").startswith("the first build")
    assert gluereport.record(built("97,3 %", "97.3%"), values, text) == []
    lines = gluereport.record(built("96,1 %", "96.1%", [glue_output("steps", "12")]), values, text)
    assert lines == [
        "Español (es):",
        "  breaks/p · median_es: 97,3 % → 96,1 %",
        "English (en):",
        "  breaks/p · median_en: 97.3% → 96.1%",
        "both languages (all):",
        "  breaks/p · steps: new: 12",
    ]
    assert text.read_text("utf-8").split("\n")[1:-1] == lines


def test_a_long_glued_value_that_changed_shows_the_part_that_differs_on_both_sides_unescaped(tmp_path):
    """Two long sentences that differ in one word: each side shows that word with a little context,
    at whole words, and HTML's entities read as text (&#x27; is ')."""
    from execbook import gluereport

    head, tail = "The message names the tensor " * 3, " and its version, as torch prints it today."
    old = {"p": {"says_en": head + "'weight'" + tail}}
    markup = f"<span>{head}&#x27;bias&#x27;{tail}</span>"
    prefix = "application/papermill.record/"
    glued = new_output(
        "display_data",
        data={f"{prefix}text/html": markup},
        metadata={"scrapbook": {"name": "says_en", "mime_prefix": prefix}},
    )
    notebook = new_notebook(cells=[new_code_cell("x", outputs=[glued])])
    new = {"p": gluereport.glued(notebook)}
    (line,) = gluereport.compare(old, new)[1:]
    before, after = line.split(": ", 1)[1].split(" → ")
    assert "'weight'" in before and "'bias'" in after and "&#x27;" not in line, line
    assert before != after and before.startswith("…") and after.endswith("…"), line
    for side in (before, after):
        words = side.strip("…").split(" ")
        assert all(w in (head + "'weight' 'bias'" + tail).split(" ") for w in words), f"a word cut: {side}"


def test_an_excerpt_never_cuts_a_word():
    from execbook import excerpt

    text = "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace"
    for width in range(10, len(text)):
        shown = excerpt(text, width=width)
        assert shown.endswith("…") and text.startswith(shown.removesuffix("…")), shown
        assert text[len(shown) - 1] == " ", f"cut mid-word at {width}: {shown}"


def test_a_name_an_earlier_example_defined_is_named_with_that_example(scratch):
    scratch("first", "future = 1\n")
    scratch("second", "print(future)\n")
    raised = "NameError: name 'future' is not defined"
    failure = cases.case_failure(cases.Outcome("second", False, raised=raised), earlier=["first"])  # as the guard says
    assert failure.reason.endswith(
        "\n(future is defined by examples/first.py, an earlier example on the page: each example runs in a "
        "namespace of its own, as it does alone; define or import it here)"
    )
    assert cases.borrowed(["first"], "NameError: name 'nowhere' is not defined") == ""
    assert cases.borrowed([], raised) == ""


# The guard judges in the page's kernel, which reads this book's manifest (symptom_forward's entry).
def test_an_example_that_raises_undeclared_is_judged_by_its_guard_at_its_line(monkeypatch, tmp_path):
    monkeypatch.setenv(config.STORE_ENV, str(tmp_path))  # where the guard keeps its failure for the build
    name = "symptom_forward"  # its entry: it completes
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("import execbook.kernel as _book"),
            nbformat.v4.new_code_cell("x = 1\nprint(undefined_name)", metadata={pages.EXAMPLE: name}),
            nbformat.v4.new_code_cell(f'_book.check("{name}")', metadata={pages.GUARDS: name}),
            nbformat.v4.new_code_cell("print('never')"),
        ]
    )

    async def go():
        with tempfile.TemporaryDirectory(prefix="kernels-") as folder:
            return await build.run_page("p", notebook, asyncio.ensure_future(build.start_kernel(folder, [])))

    _, error = asyncio.run(go())
    assert error == (
        f"p (es, en) · examples/{name}.py:2\n"
        "  it raised NameError: name 'undefined_name' is not defined\n"
        f"  but examples/cases.toml [{name}] says it must complete\n"
        f"  → fix the example so that it completes, as its entry [{name}] in examples/cases.toml declares"
    )
    assert notebook.cells[3].outputs == []
