"""The author's loop names every slip where it was written (issue 45 item 9): `python -m execbook run`
reports a failure as the build does, at the example's line; a failing hidden check names its own
source when it has no message, and the sentences it guards in every language; a glued None fails;
an entry that no longer raises lists the sentences that quote its glued values."""

import subprocess

import pytest

from execbook import author, cases, cli, config, quotes, source


@pytest.fixture
def example(tmp_path, monkeypatch):
    """write(name, code, expect): an example of a manifest that holds it alone, in tmp_path/examples."""
    monkeypatch.setattr(config, "EXAMPLES", tmp_path)
    written: dict[str, cases.Case] = {}
    monkeypatch.setattr(cases, "manifest", lambda: written)

    def write(name, code, expect="completes"):
        (tmp_path / f"{name}.py").write_text(code, "utf-8")
        written[name] = cases.Case(name, expect)

    return write


def line_of(page, text):
    lines = (config.DOCS / page).read_text("utf-8").split("\n")
    return next(n for n, line in enumerate(lines, 1) if text in line)


def test_run_names_the_line_of_an_error_as_the_build_does(example, capsys):
    example("broken", "x = 1\nprint(undefined_name)\n")
    assert author.run("broken") == 1
    assert capsys.readouterr().err.endswith(
        f"no page ({', '.join(config.LANGUAGES)}) · examples/broken.py:2\n"
        "  it raised NameError: name 'undefined_name' is not defined\n"
        "  but examples/cases.toml [broken] says it must complete\n"
        "  → fix the example so that it completes, as its entry [broken] in examples/cases.toml declares\n"
    )


def test_an_expected_error_that_no_longer_raises_is_named_at_its_entry_and_its_last_statement(
    example, capsys, tmp_path, monkeypatch
):
    manifest = tmp_path / "cases.toml"
    manifest.write_text('[other]\nexpect = "completes"\n\n[stopped]\nexpect = "raises"\n', "utf-8")
    monkeypatch.setattr(config, "MANIFEST", manifest)
    example("stopped", "numbers = [1, 2, 3]\nnumbers[2]  # raised IndexError at [3]\n")
    cases.manifest()["stopped"] = cases.Case("stopped", "raises", "IndexError", "out of range")
    assert author.run("stopped") == 1
    assert capsys.readouterr().err == (
        f"no page ({', '.join(config.LANGUAGES)}) · examples/stopped.py:2\n"
        "  examples/stopped.py must raise IndexError containing 'out of range' (examples/cases.toml:4), but it "
        "completed without raising\n"
        "  → the example no longer does what its entry declares: fix the example, or its entry [stopped] in "
        "examples/cases.toml\n"
    )


def test_a_bare_assert_is_named_by_its_own_source(example, capsys):
    example("checked", "value = 2\n\n# %% hidden checks\nassert value == 3\n")
    assert author.run("checked") == 1
    err = capsys.readouterr().err
    assert " · examples/checked.py:4\n  a hidden check of what the prose says: assert value == 3\n" in err, err


def test_a_glued_none_fails_naming_its_key_and_the_sentences_that_quote_it(example, capsys):
    checks = "error = raised()\nglue('error_core', f'{type(error).__name__}: {error}')\n"
    example("weakened", "x = 1\n\n# %% hidden checks\nfrom execbook import glue, raised\n\n" + checks)
    assert author.run("weakened") == 1
    err = capsys.readouterr().err
    assert (
        "examples/weakened.py:7\n  a hidden check of what the prose says: it glues error_core = 'NoneType: None'" in err
    )
    for language in config.LANGUAGES:
        page = f"{language}/breaks/25-inplace-autograd.md"
        assert f"\n    docs/{page}:{line_of(page, '`error_core`')}: «" in err, err
    assert "→ glue error_core from what the example does now" in err


def test_a_check_that_glues_nothing_guards_the_sentence_after_its_cell():
    found = quotes.guarded("theory02_version_counter", None)
    assert [s.split(":")[0] for s in found] == [
        f"docs/{lang}/theory/02-autograd-engine.md" for lang in config.LANGUAGES
    ]
    for sentence in found:
        page = sentence.split(":")[0].removeprefix("docs/")
        assert int(sentence.split(":")[1]) > line_of(page, "theory02_version_counter.py"), sentence


def test_an_entry_that_no_longer_raises_lists_the_sentences_that_quote_its_glued_values(tmp_path, monkeypatch):
    manifest = tmp_path / "cases.toml"
    entry = '[symptom_backward]\nexpect = "raises"\nerror = "RuntimeError"\nmatch = "inplace"\n'
    manifest.write_text(entry, "utf-8")
    git = ["git", "-c", "user.name=a", "-c", "user.email=a@b", "-C", str(tmp_path)]
    for command in (["init", "-q"], ["add", "cases.toml"], ["commit", "-qm", "entry"]):
        subprocess.run([*git, *command], check=True, capture_output=True)
    assert quotes.flipped(manifest) == []
    manifest.write_text('[symptom_backward]\nexpect = "completes"\n', "utf-8")
    [note] = quotes.flipped(manifest)
    assert note.startswith("note: examples/cases.toml [symptom_backward] now says completes (it said raises)")
    page = "en/breaks/25-inplace-autograd.md"
    assert f"\n  docs/{page}:{line_of(page, '`error_core`')}: «" in note, note
    monkeypatch.setenv("PATH", str(tmp_path))  # no git here: nothing to compare, no traceback
    assert quotes.flipped(manifest) == []


def test_a_check_guards_the_values_it_glues_from_what_it_reads(example):
    checks = "assert a == 1\nassert b == 2\nassert True\nglue('k_a', a)\nglue('k_b', b + 1)\nglue('k_c', 3)\n"
    example("glues", "a, b = 1, 2\n# %% hidden checks\nfrom execbook import glue\n" + checks)
    assert [quotes.glued("glues", line) for line in (4, 5, 6)] == [["k_a"], ["k_b"], ["k_a"]]
    assert quotes.glued("glues") == ["k_a", "k_b", "k_c"]


def test_run_names_an_example_python_cannot_compile_at_its_line(example, capsys):
    example("early", "x = 1\nreturn x\n")
    assert author.run("early") == 1
    assert capsys.readouterr().err == (
        f"{source.shown_path(config.EXAMPLES / 'early.py')}:2: Python cannot compile it: 'return' outside function "
        "(column 1) → correct the code at that line\n"
    )


def test_run_takes_an_example_s_name_or_its_file_and_page_a_page(monkeypatch):
    """`execbook run NAME` or `run examples/NAME.py` run the same example; `page PAGE` runs that page."""
    monkeypatch.setattr(author.build, "kernel_environment", lambda: None)  # this process's environment stays
    monkeypatch.setenv("MPLBACKEND", "Agg")
    ran = []
    monkeypatch.setattr(author, "watched", lambda name: ran.append(("run", name)) or 0)
    monkeypatch.setattr(author, "page", lambda target: ran.append(("page", target)) or 0)
    for words in (["run", "fix"], ["run", "examples/fix.py"], ["page", "breaks/25-inplace-safe"]):
        assert author.main(cli.parser().parse_args(words)) == 0
    assert ran == [("run", "fix"), ("run", "fix"), ("page", "breaks/25-inplace-safe")]
