"""A failing build says what failed in its last lines (execbook.build): the page (both languages),
the example file and line, the one-line reason (what was declared, what happened) and what to do;
no Sphinx error wall, no kernel message, no traceback.

The end-to-end test breaks three things at once in a copy of the cold build (`cold_build`,
tests/conftest.py), each on a page of its own so that each page stops at its own failure:
a safe case made unsafe (the safe page), a check of what the prose says that no longer holds
(theory 04), and an expected error that the manifest declares wrongly (theory 02).
"""

import re

import pytest
from conftest import build, copy_repository

from execbook import cases

LAST_LINES = 22


def insert_before_checks(path, line):
    """Add a line to what the page shows of an example (at its end, above its hidden checks if any)."""
    text = path.read_text(encoding="utf-8")
    at = text.find(cases.CHECKS) if cases.CHECKS in text else len(text)
    path.write_text(text[:at] + line + "\n\n\n" + text[at:], encoding="utf-8")


def insert_after_checks(path, line):
    """Add a line at the top of an example's hidden checks (what the page runs out of sight)."""
    text = path.read_text(encoding="utf-8")
    at = text.index("\n", text.index(cases.CHECKS)) + 1
    path.write_text(text[:at] + line + "\n" + text[at:], encoding="utf-8")


@pytest.fixture(scope="module")
def broken(cold_build, tmp_path_factory):
    """(repo, the last lines of what its failed build printed, the whole output)."""
    repo, _ = cold_build
    repo = copy_repository(tmp_path_factory.mktemp("broken") / "repo", repository=repo)
    insert_before_checks(repo / "examples" / "safe_relu_linear.py", "same = False  # the case no longer holds")
    # at the top of its hidden checks: its shown cell is already as long as a shown cell may be (execbook.lint)
    walk = repo / "examples" / "theory04_walk.py"
    insert_after_checks(walk, "accumulate = accumulate[1:]  # the prose no longer holds")
    manifest = repo / "examples" / "cases.toml"
    text = manifest.read_text(encoding="utf-8")
    entry = '[phase08_caught]\nexpect = "raises"\nerror = "RuntimeError"'
    assert entry in text
    manifest.write_text(text.replace(entry, entry.replace("RuntimeError", "ValueError")), encoding="utf-8")
    done = build(repo)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    printed = (done.stdout + done.stderr).rstrip("\n")
    return repo, "\n".join(printed.split("\n")[-LAST_LINES:]), printed


def paragraph(last, page):
    """The lines of the failure report about one page (from its name to the next blank line)."""
    found = re.search(rf"^{re.escape(page)} \(es, en\) · (.+?)(?:\n\n|\Z)", last, re.M | re.S)
    assert found, f"{page} is not named in the last {LAST_LINES} lines:\n{last}"
    return found.group(0)


def test_a_safe_case_made_unsafe_names_the_page_the_example_and_its_entry(broken):
    repo, last, _ = broken
    report = paragraph(last, "breaks/25-inplace-safe")
    line = len((repo / "examples" / "safe_relu_linear.py").read_text("utf-8").rstrip("\n").split("\n"))
    assert f"examples/safe_relu_linear.py:{line}" in report, "the line that made the case false"
    entry = (repo / "examples" / "cases.toml").read_text("utf-8").split("\n").index("[safe_relu_linear]") + 1
    assert f"must complete with same true (examples/cases.toml:{entry}), but same is False" in report
    assert "→ the example no longer does what its entry declares" in report


def test_a_prose_check_that_no_longer_holds_names_its_line_and_says_to_edit_the_sentence(broken):
    repo, last, _ = broken
    report = paragraph(last, "theory/04-autograd-tape-walk-mini-gpt")
    line = next(
        i
        for i, text in enumerate((repo / "examples" / "theory04_walk.py").read_text("utf-8").split("\n"), 1)
        if "one AccumulateGrad per parameter" in text
    )
    assert f"examples/theory04_walk.py:{line}" in report
    assert "a hidden check of what the prose says: the page says one AccumulateGrad per parameter" in report
    for language in ("es", "en"):  # the sentences it guards: those that quote the value it glues
        assert f"\n    docs/{language}/theory/04-autograd-tape-walk-mini-gpt.md:" in report, report
    assert "→ what the prose says no longer holds: edit the sentence in both languages" in report


def test_a_wrong_expected_error_says_what_was_declared_and_what_was_raised(broken):
    _, last, _ = broken
    report = paragraph(last, "theory/02-autograd-engine")
    assert re.search(r"examples/phase08_caught\.py:\d+", report), report
    assert re.search(
        r"examples/phase08_caught\.py must raise ValueError containing 'modified by an inplace operation' "
        r"\(examples/cases\.toml:\d+\), but it raised RuntimeError: one of the variables needed",
        report,
    ), report
    assert (
        "→ the example no longer does what its entry declares: fix the example, or its entry "
        "[phase08_caught] in examples/cases.toml" in report
    )


def test_the_report_blames_no_release_and_hides_no_wall_of_errors(broken):
    _, last, printed = broken
    assert "docs: the build failed" in printed and "docs: 3 pages failed" in last
    assert "no longer holds on torch" not in printed, "an example's failure is not torch's"
    for noise in ("Traceback", "Sphinx parallel build error", "ExecutionError", "Kernel", "sphinx-err-"):
        assert noise not in printed, noise


def test_a_broken_claim_blames_the_checkout_when_its_release_recorded_it_holding():
    from phase25.claims import ClaimBroken, Outcome

    broken = [Outcome("forward-identical", False, "logits differ")]
    held = ClaimBroken(broken, "2.13.0+cpu")
    assert (
        "no longer holds with this checkout (records/torch-2.13.0.json says it held on torch 2.13.0+cpu)" in held.reason
    )
    assert "undo that change" in held.todo and "behaves differently" not in held.todo
    new = ClaimBroken(broken, "9.9.9")
    assert (
        "no longer holds on torch 9.9.9: logits differ" in new.reason and "torch 9.9.9 behaves differently" in new.todo
    )
    failure = cases.check_failure(cases.manifest()["compat_tables"], new)  # what the build renders
    assert (failure.reason, failure.todo) == (new.reason, new.todo)
