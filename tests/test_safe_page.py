"""The safe page (breaks/25-inplace-safe) as a learner on a phone reads it.

- the summary cell is book machinery: hidden, so no visible code pretends to print the table
  (the page shows the table glued in its own language);
- every refusal its prose states is printed by a cell of the page: a view of a leaf, a view made
  under no_grad, the outputs of split, chunk and unbind and a view of one, and the way around (a
  copy made with clone()).
"""

import functools

import pytest

from execbook import cases, config, pages
from phase25 import safe_cases, summary

PAGE = "breaks/25-inplace-safe.md"
HIDDEN = {"hide-input", "remove-input", "remove-cell"}  # tags that keep a cell's code out of sight


def loaded_cells(language):
    """[(example name, tags)] of the page's cells that load an example, in order."""
    notebook = pages.notebook(config.DOCS / language / PAGE)
    return [
        (c.metadata[pages.EXAMPLE], c.metadata.get("tags", []))
        for c in notebook.cells
        if c.cell_type == "code" and pages.EXAMPLE in c.metadata
    ]


def shown_lines(name):
    return cases.split(config.EXAMPLES / f"{name}.py")[0].rstrip("\n").split("\n")


@functools.cache
def printed(name):
    run = cases.execute(name)
    assert run.outcome.ok, run.outcome.seen
    return run.stdout


@pytest.mark.parametrize("language", list(config.LANGUAGES))
def test_the_summary_cell_is_hidden_and_the_table_is_glued_in_the_pages_language(language):
    tags = dict(loaded_cells(language))["safe_summary"]
    assert "remove-cell" in tags, "the summary's code is book machinery: the page hides it"
    text = (config.DOCS / language / PAGE).read_text(encoding="utf-8")
    assert f"{{glue:}} safe_summary_{language}\n" in text


def test_the_spanish_table_is_spanish():
    found = summary.outcomes()
    words = summary.WORDS["es"]
    rows = summary.rows("es", found)
    assert {verdict.split(" (")[0] for _, verdict, _ in rows} == {words["safe"], words["unsafe"]}
    for case in safe_cases.summary_cases():
        title = case.extra["case"]
        assert title["es"] != title["en"] or title["en"] == "tok_emb += pos_emb"
    html = summary.table_html("es", found)
    assert "<th>veredicto</th>" in html and "not safe" not in html and ">safe<" not in html


def test_every_refusal_the_prose_states_is_printed_on_the_page():
    names = [name for name, _ in loaded_cells("en")]
    assert {"safe_counter_leaf", "safe_counter_split_view", "safe_counter_refusals"} <= set(names)
    lines = printed("safe_counter_refusals").splitlines()
    refused = {line.split(".mul_(2): ")[0] for line in lines if not line.endswith(".mul_(2): ✓")}
    allowed = {line.removesuffix(".mul_(2): ✓") for line in lines if line.endswith(".mul_(2): ✓")}
    assert refused == {
        "w[:2]",
        "made_under_no_grad",
        "h.split(2)[0]",
        "h.chunk(3)[0]",
        "h.unbind()[0]",
        "h.split(2)[0][:1]",
    }
    assert allowed == {"h.split(2)[0].clone()", "h[:2]"}
    assert "A view was created in no_grad mode" in printed("safe_counter_refusals")
    assert "a view of a leaf Variable that requires grad" in printed("safe_counter_refusals")
    split = cases.execute("safe_counter_split_view")
    assert "q = q.clone(); q /= math.sqrt(C): backward() ✓" in split.stdout
    assert "returns multiple views" in str(split.error)


def test_a_safe_entry_that_must_raise_is_refused_by_the_check():
    entry = {"expect": "raises", "error": "RuntimeError", "verdict": "safe", "case": {"es": "x", "en": "x"}}
    assert "a safe case must complete" in safe_cases.check_entry("made_up", entry)
    assert safe_cases.check_entry("made_up", dict(entry, verdict="unsafe", raised_at="op")) is None


def test_a_safe_case_that_raised_is_told_to_complete_not_to_declare_the_error():
    from execbook import cases

    safe = next(c for c in safe_cases.summary_cases() if safe_cases.verdict(c) == "safe")
    assert cases.raised_todo(safe) == (
        f"fix the example so that it completes, as its entry [{safe.name}] in examples/cases.toml declares"
    )
    unsafe = next(c for c in safe_cases.summary_cases() if safe_cases.verdict(c) == "unsafe")
    assert "declare what it raises in its entry (expect, error, match)" in cases.raised_todo(unsafe)
