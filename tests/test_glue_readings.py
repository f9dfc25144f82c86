"""No false sentence from a weakened computation (issue 54 item 4). A number that a sentence reads
("half of the parameters' gradients are off by X or more", a worst case, a count) has a hidden check
that asserts that reading against the data it was computed from; `python -m execbook check` names,
at its line, a glue_number or glue_by_value whose value no assert of its example reads
(execbook.lint.unread_glue). The slip a new author made (the mean glued where the prose says half)
fails the build at the example's line, naming the sentence."""

import pytest

from execbook import cases, config, lint, quotes

SLIP = (
    "median_hooks, median_ctx = median_error(hooks), median_error(ctx)\n",
    "median_hooks, median_ctx = sum(r.rel_error for r in hooks) / len(hooks), median_error(ctx)\n",
)
SENTENCE = {"es": "Con hooks, la mitad de los parámetros", "en": "With hooks, half of the parameters' gradients"}


@pytest.fixture
def examples(tmp_path, monkeypatch):
    """write(name, text): examples/<name>.py replaced by text, for this test only."""
    cases.manifest()  # read (and kept) from the real examples first: it checks that each file exists
    monkeypatch.setattr(cases.config, "EXAMPLES", tmp_path)

    def write(name, text):
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
        return tmp_path / f"{name}.py"

    return write


@pytest.mark.usefixtures("as_the_build")
def test_the_mean_glued_as_the_median_fails_naming_the_sentence(examples):
    source = (config.REPO / "examples" / "silent_training.py").read_text(encoding="utf-8")
    assert source.count(SLIP[0]) == 1
    examples("silent_training", source.replace(*SLIP))
    with pytest.raises(AssertionError) as failed:
        cases.execute("silent_training")
    case = cases.manifest()["silent_training"]
    shown = cases.check_failure(case, failed.value, quotes.guarded).render("breaks/25-inplace-autograd (es, en)")
    assert "examples/silent_training.py:" in shown and "half of the parameters' gradients" in shown
    for language, sentence in SENTENCE.items():
        assert f"docs/{language}/breaks/25-inplace-autograd.md:" in shown and sentence in shown, shown


CHECKS = """print("shown")


# %% hidden checks
import statistics
from execbook import glue_number

errors = [0.1, 0.2, 0.9]
median_ctx = statistics.median(errors)
assert 2 * sum(e >= median_ctx for e in errors) >= len(errors)
glue_number("median_ctx", median_ctx, ".2%")
glue_number("median_hooks", statistics.mean(errors), ".2%")
"""


def test_the_check_names_a_glued_number_that_no_assert_reads_and_the_sentence_quoting_it(examples):
    found = lint.unread_glue(examples("silent_training", CHECKS))
    assert [(p.file, p.line) for p in found] == [("examples/silent_training.py", 12)]
    assert "'median_hooks' glues statistics.mean(errors), which no assert of the example reads" in found[0].what
    assert SENTENCE["es"] in found[0].what, "it names the sentence that quotes it"


def test_every_example_asserts_what_its_glued_numbers_mean():
    assert [str(p) for case in cases.manifest().values() for p in lint.unread_glue(case.path)] == []
