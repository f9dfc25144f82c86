"""Comments in each language inside an example (execbook.comments): each language's page shows its
own, the notebook executed for both holds none, editing one executes nothing, an unpaired tag is a
problem named at its file and line."""

import subprocess
import sys

from conftest import copy_repository

from execbook import comments, config, deps

EXAMPLE = """\
import torch

# en: the residual, written in place
# es: el residual, escrito en el sitio
h = torch.ones(2)
for _ in range(2):
    # en: twice
    # es: dos veces
    h.add_(1)  # untagged, as it is
# a comment in no language
"""


def test_each_language_shows_its_comments_and_the_executed_code_none():
    assert comments.shown(EXAMPLE, "en").split("\n")[2:7] == [
        "# the residual, written in place",
        "h = torch.ones(2)",
        "for _ in range(2):",
        "    # twice",
        "    h.add_(1)  # untagged, as it is",
    ]
    assert comments.shown(EXAMPLE, "es").split("\n")[2] == "# el residual, escrito en el sitio"
    assert comments.neutral(EXAMPLE).split("\n")[2:6] == ["#", "h = torch.ones(2)", "for _ in range(2):", "    #"]
    assert comments.neutral(EXAMPLE).endswith("# a comment in no language\n")


def test_a_line_of_the_shown_code_is_named_at_its_line_of_the_file():
    lines = EXAMPLE.split("\n")
    shown = comments.neutral(EXAMPLE).split("\n")
    for number, text in enumerate(shown, 1):
        if text.strip() != "#":
            assert lines[comments.file_line(EXAMPLE, number) - 1] == text
    assert comments.file_line(EXAMPLE, 3) == 3  # the pair's own line: its first


def test_editing_a_comment_changes_no_fingerprint_adding_one_does(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "EXAMPLES", tmp_path)
    monkeypatch.setattr(config, "REPO", tmp_path)
    example = tmp_path / "x.py"
    example.write_text(EXAMPLE, encoding="utf-8")
    before = deps.fingerprint([example])
    example.write_text(EXAMPLE.replace("dos veces", "otra vez").replace("twice", "again"), encoding="utf-8")
    assert deps.fingerprint([example]) == before
    example.write_text(EXAMPLE.replace("h.add_(1)", "h.add_(2)"), encoding="utf-8")
    assert deps.fingerprint([example]) != before
    example.write_text("# en: more\n# es: más\n" + EXAMPLE, encoding="utf-8")
    assert deps.fingerprint([example]) != before  # the code's lines moved


def test_an_unpaired_tag_is_named_at_its_line():
    text = EXAMPLE.replace("    # es: dos veces\n", "").replace("# en: the residual, written in place\n", "")
    assert comments.problems(text) == [
        (3, "# es: without # en: beside it (the line above or below, at the same indentation)"),
        (6, "# en: without # es: beside it (the line above or below, at the same indentation)"),
    ]
    assert comments.problems(EXAMPLE.replace("    # es: dos veces", "# es: dos veces")) == [
        (7, "# en: without # es: beside it (the line above or below, at the same indentation)"),
        (8, "# es: without # en: beside it (the line above or below, at the same indentation)"),
    ]


def test_python_m_execbook_check_names_an_unpaired_tag_at_its_file_and_line(tmp_path):
    repo = copy_repository(tmp_path / "repo", keep_build=False)
    example = repo / "examples" / "safe_relu_linear.py"
    lines = example.read_text(encoding="utf-8").split("\n")
    at = next(n for n, line in enumerate(lines) if line.startswith("# es:"))
    del lines[at]
    example.write_text("\n".join(lines), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "execbook", "check"], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 1
    assert f"examples/safe_relu_linear.py:{at}: # en: without # es: beside it" in done.stdout, done.stdout


def test_each_language_page_and_downloads_carry_its_comments_from_one_execution(site):
    """End to end: an example with a pair of comments (examples/safe_relu_linear.py), as the built site shows it."""
    import json
    from html import escape

    from execbook import cases, pages

    page, name = "breaks/25-inplace-safe", "safe_relu_linear"
    assert name in pages.examples(pages.notebook(config.DOCS / "en" / f"{page}.md"))
    text = cases.split(cases.manifest()[name].path)[0]
    for language, other in (("en", "es"), ("es", "en")):
        mine = set(comments.shown(text, language).split("\n")) - set(comments.shown(text, other).split("\n"))
        theirs = set(comments.shown(text, other).split("\n")) - set(comments.shown(text, language).split("\n"))
        assert mine and all(line.lstrip().startswith("# ") for line in mine | theirs)
        script = (site / language / "_downloads" / f"{page}.py").read_text(encoding="utf-8").split("\n")
        notebook = json.loads((site / language / "_downloads" / f"{page}.ipynb").read_text(encoding="utf-8"))
        code = "".join("".join(c["source"]) + "\n" for c in notebook["cells"] if c["cell_type"] == "code").split("\n")
        html = (site / language / f"{page}.html").read_text(encoding="utf-8")
        for lines in (script, code):
            assert mine <= set(lines) and not theirs & set(lines)
        assert all(escape(line.strip(), quote=False) in html for line in mine)


def test_a_failure_in_a_cell_is_named_at_the_line_of_the_file():
    from execbook import cases

    name = "safe_relu_linear"
    text = cases.split(cases.manifest()[name].path)[0]
    cell_line = next(n for n, line in enumerate(comments.neutral(text).split("\n"), 1) if line.startswith("same ="))
    file_line = next(n for n, line in enumerate(text.split("\n"), 1) if line.startswith("same ="))
    assert file_line > cell_line, "the example holds a pair of comments above the line"
    # innermost first: a line of the library it called, the cell's (the frame IPython's run_code calls)
    frames = [("/x/minigpt/compare.py", 7, "identical"), ("/tmp/ipykernel_1/2.py", cell_line, "<module>")]
    frames.append(("/x/IPython/core/interactiveshell.py", 3577, "run_code"))
    assert cases.line_in(cases.manifest()[name], frames) == file_line


def test_the_frames_of_the_cell_in_a_traceback_show_the_languages_comment():
    shown = comments.neutral(EXAMPLE).split("\n")
    pair = shown.index("    #") + 1  # the second pair's line in the cell
    traceback = "\n".join(
        [
            "Cell In[6], line 9",
            f"{pair - 1:>7} for _ in range(2):",
            f"{pair:>7}     #",
            f"----> {pair + 1} h.add_(1)",
            "File minigpt/model.py:3, in f()",
            f"{pair:>7}     #",
        ]
    )
    lines = comments.in_traceback(traceback, EXAMPLE, "es").split("\n")
    assert lines[2] == f"{pair:>7}     # dos veces"
    assert lines[5] == f"{pair:>7}     #", "a frame of another file: as it is"
