"""Every example does what examples/cases.toml declares, and the pages run them that way.

The manifest is the one declaration of each example's outcome. The same function that judges a
cell in the book's kernel (execbook.cases.judge, called by the hidden guard execbook.kernel.check)
judges each file here (all of them run once, in tests/run_examples.py, in the background); the
pages get their tags and guards from the manifest (execbook.pages.read), read here with
MyST-NB's own reader.
"""

import ast
import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execbook import cases, kernel, newbook, pages
from phase25 import safe_cases

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
EXECUTED_PAGES = sorted(
    p.relative_to(DOCS / "en")
    for p in (DOCS / "en").rglob("*.md")
    if "file_format: mystnb" in p.read_text(encoding="utf-8")
)


def code_cells(lang, page):
    notebook = pages.notebook(DOCS / lang / page)
    return [(dict(c.metadata), c.source) for c in notebook.cells if c.cell_type == "code"]


def loaded(metadata):
    return metadata.get(pages.EXAMPLE)


@pytest.fixture(scope="module")
def loads():
    """page -> [example names it loads, in order] (English tree; the Spanish one is identical)."""
    return {page: [loaded(m) for m, _ in code_cells("en", page) if loaded(m)] for page in EXECUTED_PAGES}


@pytest.mark.parametrize("name", list(cases.manifest()))
def test_example_does_what_the_manifest_says(example_results, name):
    assert example_results[name]["ok"], example_results[name]["failure"]


def test_every_example_has_an_entry_and_every_entry_is_loaded_by_a_page(loads):
    files = {p.stem for p in (REPO / "examples").glob("*.py")}
    assert files == set(cases.manifest())
    loaded_names = [name for names in loads.values() for name in names]
    assert sorted(loaded_names) == sorted(cases.manifest()), "each example is loaded by exactly one page"


@pytest.mark.parametrize("page", EXECUTED_PAGES, ids=str)
def test_cells_are_tagged_and_guarded_as_the_manifest_says(page):
    cells = code_cells("en", page)
    setup_metadata, setup = cells[0]
    assert setup_metadata["tags"] == ["remove-cell"] and "_book.begin()" in setup
    for (metadata, _), (guard_metadata, guard) in itertools.pairwise(cells):
        name = loaded(metadata)
        if name is None:
            continue
        raises = cases.manifest()[name].expect == "raises"
        assert ("raises-exception" in metadata.get("tags", [])) is raises, name
        assert guard_metadata["tags"] == ["remove-cell"] and guard == f'_book.check("{name}")', name


def test_a_raising_example_fails_the_same_way_run_as_a_script():
    """The files are programs of their own, not only strings for a runner."""
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, str(REPO / "examples" / "symptom_backward.py")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert done.stderr.rstrip().splitlines()[-1].startswith("RuntimeError: ")
    assert cases.manifest()["symptom_backward"].match in done.stderr


# --- the judge: it must catch an example that stops raising, raises something else, or whose
# check turns false


@pytest.fixture
def scratch_examples(tmp_path, monkeypatch):
    """write(name, code, **entry) -> Case, for an example file in a scratch examples folder."""
    monkeypatch.setattr(cases.config, "EXAMPLES", tmp_path)

    def write(name, code, **entry):
        (tmp_path / f"{name}.py").write_text(code, encoding="utf-8")
        return cases.entry_case(name, entry)

    return write


def judged(case):
    error, namespace = None, {}
    try:
        exec(compile(case.path.read_text(encoding="utf-8"), str(case.path), "exec"), namespace)
    except Exception as exc:  # noqa: BLE001
        error = exc
    return cases.judge(case, error, namespace)


RAISES = dict(expect="raises", error="RuntimeError", match="modified by an inplace operation")


@pytest.mark.parametrize(
    "code,entry,ok",
    [
        ("raise RuntimeError('x was modified by an inplace operation: ...')\n", RAISES, True),
        ("print('fixed: nothing raises any more')\n", RAISES, False),
        ("raise ValueError('modified by an inplace operation')\n", RAISES, False),
        ("raise RuntimeError('some other failure')\n", RAISES, False),
        (
            "def f():\n    raise RuntimeError('modified by an inplace operation')\nf()\n",
            dict(RAISES, verdict="unsafe", raised_at="backward", case={"es": "x", "en": "x"}),
            False,
        ),  # raised at the op, declared at backward
        ("same = True\n", dict(expect="completes", holds="same", checks={"es": "x", "en": "x"}), True),
        ("same = False\n", dict(expect="completes", holds="same", checks={"es": "x", "en": "x"}), False),
        ("pass\n", dict(expect="completes", holds="same", checks={"es": "x", "en": "x"}), False),
        ("raise RuntimeError('boom')\n", dict(expect="completes"), False),
    ],
)
def test_judge(scratch_examples, code, entry, ok):
    outcome = judged(scratch_examples("case", code, **entry))
    assert outcome.ok is ok, outcome.seen


def test_judge_finds_the_line_that_raised_and_where(scratch_examples):
    case = scratch_examples(
        "case",
        "import torch\nw = torch.ones(2, requires_grad=True)\nw.add_(1)  # raises\n",
        **dict(RAISES, match="a leaf Variable", verdict="unsafe", raised_at="op", case={"es": "x", "en": "x"}),
    )
    outcome = judged(case)
    assert outcome.ok and (outcome.line, safe_cases.raised_at(outcome)) == ("w.add_(1)", "op")


@pytest.mark.parametrize(
    "entry,problem",
    [
        ({"expect": "maybe"}, "expect must be one of"),
        ({"expect": "raises", "error": "RuntimeError"}, "needs error and match"),
        ({"expect": "completes", "match": "x"}, "only go with"),
        ({"expect": "completes", "verdict": "safe"}, "case = {es"),
        ({"expect": "completes", "holds": "same"}, "holds needs checks"),
        (
            {"expect": "raises", "error": "E", "match": "m", "verdict": "unsafe", "case": {"es": "x", "en": "x"}},
            "raised_at",
        ),
        ({"expect": "completes", "colour": "red"}, "unknown key"),
    ],
)
def test_manifest_mistakes_are_one_line_naming_the_entry(scratch_examples, entry, problem):
    with pytest.raises(cases.ManifestError, match=problem) as info:
        scratch_examples("case", "pass\n", **entry)
    assert "[case]" in str(info.value) and "\n" not in str(info.value)


def test_the_guard_fails_the_cell_blaming_the_example_and_its_entry(monkeypatch):
    from execbook import store

    monkeypatch.setattr(store, "_memory", {})  # the failed outcome it records stays in this test
    monkeypatch.delenv(store.STORE_ENV, raising=False)
    monkeypatch.setattr(kernel, "outcomes", {})
    kernel.remember_error(None)  # as if safe_counter_leaf's cell had stopped raising
    with pytest.raises(
        kernel.CheckFailed,
        match=r"^examples/safe_counter_leaf.py must raise RuntimeError .*"
        r"\(examples/cases.toml:\d+\), but it completed",
    ):
        kernel.check("safe_counter_leaf", namespace={})


def test_a_hidden_check_that_fails_names_its_line_and_example(monkeypatch):
    from execbook import store

    monkeypatch.setattr(store, "_memory", {})
    monkeypatch.delenv(store.STORE_ENV, raising=False)
    kernel.remember_error(None)
    namespace = dict(cases.execute("symptom_forward").namespace)
    namespace["logits_b"] = namespace["logits_b"] + 1  # as if run B's forward had changed
    with pytest.raises(
        kernel.CheckFailed,
        match=r"^examples/symptom_forward.py:\d+, a hidden check of what the "
        r"prose says: the page says the forward outputs are bitwise equal",
    ):
        kernel.check("symptom_forward", namespace=namespace)


# --- the pages: what expand adds, and what it refuses (as execbook.lint names it)


PAGE = (
    newbook.FRONT_MATTER
    + """
# Title

```{code-cell} ipython3
:load: ../examples/symptom_backward.py
```

Prose.

```{code-cell} ipython3
:load: ../examples/symptom_forward.py
```
"""
)


def test_the_reader_adds_setup_tags_and_guards(tmp_path):
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    examples = REPO / "examples"
    text = PAGE.replace("../examples/", f"{os.path.relpath(examples, page.parent)}/")
    assert pages.examples(pages.read(text, page)) == ["symptom_backward", "symptom_forward"]
    page.write_text(text, encoding="utf-8")
    cells = [
        (c.metadata.get("tags"), c.metadata.get(pages.EXAMPLE), c.source)
        for c in pages.notebook(page).cells
        if c.cell_type == "code"
    ]
    assert [tags for tags, *_ in cells] == [
        ["remove-cell"],
        ["raises-exception"],
        ["remove-cell"],
        None,
        ["remove-cell"],
    ]
    assert [source for *_, source in cells][2::2] == [
        '_book.check("symptom_backward")',
        '_book.check("symptom_forward")',
    ]


def test_a_load_option_shown_in_a_fenced_example_stays_as_written(tmp_path):
    shown = "````markdown\n```{code-cell} ipython3\n:load: ../examples/my_example.py\n```\n````\n"
    text = PAGE.replace("../examples/", f"{os.path.relpath(REPO / 'examples', tmp_path)}/") + shown
    notebook = pages.read(text, tmp_path / "page.md")
    assert pages.examples(notebook) == ["symptom_backward", "symptom_forward"]
    assert shown.strip() in notebook.cells[-1].source


@pytest.mark.parametrize(
    "edit,problem",
    [
        (lambda t: t.replace("symptom_forward", "not_an_example"), "not_an_example.py, which does not exist"),
        (
            lambda t: t.replace("../examples/symptom_forward.py", "../examples/cases.toml"),
            "cases.toml, not a file of examples/",
        ),
        (
            lambda t: t.replace(
                ":load: ../examples/symptom_backward.py",
                ":load: ../examples/symptom_backward.py\n:tags: [raises-exception]",
            ),
            "the cell tags itself raises-exception",
        ),
    ],
)
def test_the_reader_refuses_what_the_manifest_does_not_declare(tmp_path, edit, problem):
    page = tmp_path / "page.md"
    text = edit(PAGE).replace("../examples/", f"{os.path.relpath(REPO / 'examples', tmp_path)}/")
    with pytest.raises(pages.PageError, match=problem):
        pages.read(text, page)


# --- what a page shows is what a learner types

LEARNER_IMPORTS = {"torch", "numpy", "matplotlib", "minigpt", "inplace_doctor", "tapegrad"} | set(
    sys.stdlib_module_names
)


def shown_imports(name):
    """The top-level packages that what the page shows of examples/<name>.py imports."""
    tree = ast.parse(cases.split(cases.manifest()[name].path)[0])
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.add((node.module or "").split(".")[0])
    return found


@pytest.mark.parametrize("name", list(cases.manifest()))
def test_what_a_page_shows_imports_only_what_a_learner_has(name):
    beyond = shown_imports(name) - LEARNER_IMPORTS
    assert not beyond, (
        f"examples/{name}.py imports {sorted(beyond)} above its hidden checks: a learner has only "
        f"{', '.join(sorted(LEARNER_IMPORTS - set(sys.stdlib_module_names)))} and the standard library; "
        "move the rest below `# %% hidden checks`, or what a learner calls into minigpt"
    )
