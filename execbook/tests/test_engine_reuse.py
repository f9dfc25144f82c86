"""The book engine (execbook) is reusable: a tiny two-language book, written here in a temporary
folder beside a copy of the engine alone (its package, which holds its templates, CSS and JS), builds:
one page, one example that must raise, one number its hidden checks glue into the prose, one
label the index of each language cites. Neither the build process nor the page's kernel imports
anything of the lesson (phase25), of minigpt or of the diagnoser, although all three are
installed here: the engine reaches a book's code only by name ([tool.book.hooks]), and this book
names none.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import execbook
from execbook import config

ENGINE = Path(execbook.__file__).parent  # the package, wherever it is installed from

NOT_THE_ENGINE = ("phase25", "minigpt", "inplace_doctor", "tapegrad")
PYPROJECT = """\
[project]
name = "tiny-book"
version = "0"

[tool.book]
languages = { en = "English", es = "Español" }
titles = { en = "A tiny book", es = "Un libro mínimo" }
site-url = "https://example.org/tiny/"
repository = "https://github.com/example/tiny"
"""
EXAMPLE = """\
numbers = [1, 2, 3]
total = sum(numbers)
numbers[3]  # raises


# %% hidden checks: what the page says of this example, and the values its prose quotes

import sys

from execbook import glue_number

outside = sorted({m.split(".")[0] for m in sys.modules} & {NOT_THE_ENGINE})
assert not outside, f"the page's kernel imported {outside}"
assert total == 6, "the page says the numbers add up to the glued total"  # each glued number is asserted
glue_number("tiny_total", total)  # tiny_total_en, tiny_total_es: each language writes numbers its way
""".replace("{NOT_THE_ENGINE}", repr(set(NOT_THE_ENGINE)))
MANIFEST = """\
[tiny]
expect = "raises"
error = "IndexError"
match = "list index out of range"
"""
INDEX = {
    "en": ("A tiny book", "The page is {ref}`tiny-page`."),
    "es": ("Un libro mínimo", "La página es {ref}`tiny-page`."),
}
PAGE = {
    "en": ("The list", "Reading past the end raises:", "The numbers add up to {glue:}`tiny_total_en`."),
    "es": ("La lista", "Leer más allá del final lanza un error:", "Los números suman {glue:}`tiny_total_es`."),
}
# What the build process reports of itself (a copy of execbook.build's entry point).
BUILD = """\
import json, sys
from execbook import cli
status = cli.main(["build"])
engine = sys.modules["execbook"].__file__
json.dump({"status": status, "engine": engine, "modules": sorted(sys.modules)}, open("built.json", "w"))
sys.exit(status)
"""


def write_book(root: Path, engine: bool = True) -> None:
    """The tiny book in root; engine: with a copy of the engine's package beside it."""
    if engine:
        shutil.copytree(ENGINE, root / "execbook", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (root / "examples").mkdir()
    (root / "examples" / "tiny.py").write_text(EXAMPLE, encoding="utf-8")
    (root / "examples" / "cases.toml").write_text(MANIFEST, encoding="utf-8")
    for language in ("en", "es"):
        tree = root / "docs" / language
        tree.mkdir(parents=True)
        (tree / "conf.py").write_text(
            f"from execbook.sphinxext.config import configure\n\nglobals().update(configure({language!r}))\n",
            encoding="utf-8",
        )
        title, text = INDEX[language]
        (tree / "index.md").write_text(f"# {title}\n\n{text}\n\n```{{toctree}}\npage\n```\n", encoding="utf-8")
        title, text, after = PAGE[language]
        front = textwrap.dedent("""\
            ---
            file_format: mystnb
            kernelspec:
              name: python3
              display_name: Python 3
            ---
            """)
        (tree / "page.md").write_text(
            f"{front}\n(tiny-page)=\n# {title}\n\n{text}\n\n```{{code-cell}} ipython3\n"
            f":load: ../../examples/tiny.py\n```\n\n{after}\n",
            encoding="utf-8",
        )


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny-book")
    write_book(root)
    done = subprocess.run(
        [sys.executable, "-c", BUILD], cwd=root, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=900
    )
    return root, done


@pytest.mark.e2e
def test_the_engine_alone_builds_a_tiny_two_language_book(tiny):
    root, done = tiny
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((root / "built.json").read_text(encoding="utf-8"))
    assert Path(report["engine"]).is_relative_to(root), "the build ran the copy of the engine"
    for language, words in (("en", "add up to"), ("es", "suman")):
        page = (root / "docs" / "_build" / "html" / language / "page.html").read_text(encoding="utf-8")
        assert re.search(rf"{words} <span[^>]*>\W*6\W*</span>", page), "the glued number is in the prose"
        assert "IndexError" in page and "list index out of range" in page, "the page shows the error it must raise"
        index = (root / "docs" / "_build" / "html" / language / "index.html").read_text(encoding="utf-8")
        assert 'href="page.html#tiny-page"' in index, "the index cites the page's label"


@pytest.mark.e2e
def test_the_build_imports_nothing_of_the_lesson_the_model_or_the_diagnoser(tiny):
    root, done = tiny
    report = json.loads((root / "built.json").read_text(encoding="utf-8"))
    outside = sorted({m for m in report["modules"] if m.split(".")[0] in NOT_THE_ENGINE})
    assert outside == [], f"the build process imported {outside}"


@pytest.mark.e2e
def test_a_tiny_example_that_stops_raising_fails_its_build(tiny, tmp_path):
    root, _ = tiny
    broken = tmp_path / "broken"
    shutil.copytree(root, broken, ignore=shutil.ignore_patterns("built.json"))
    example = broken / "examples" / "tiny.py"
    example.write_text(
        example.read_text(encoding="utf-8").replace("numbers[3]  # raises", "numbers[2]"), encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "execbook", "build"],
        cwd=broken,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
    )
    assert done.returncode == 1
    # named at the example's last statement and at its manifest entry's line
    assert "· examples/tiny.py:3\n" in done.stderr, done.stderr
    assert "examples/tiny.py must raise IndexError containing 'list index out of range' (examples/cases.toml:1)" in (
        done.stderr
    )
    assert "but it completed without raising" in done.stderr and "Traceback" not in done.stderr


def copy_of(tiny, tmp_path):
    root, _ = tiny
    copy = tmp_path / "copy"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("built.json"))
    return copy


# What the source check leaves to Sphinx (-n -W): each line added to a page, and Sphinx's warning
# (a {ref}, {numref}, {doc} or {term} that names nothing, the check names: tests/test_check.py).
WRONG = {
    "page.md": {  # an executed page: a glued value no example glues fails too (MyST-NB's warning)
        "A {nosuchrole}`word`.": "Unknown interpreted text role",
        "Quoted: {glue:}`no_such_key`.": "No key 'no_such_key' found in glue data for this document.",
    },
    "index.md": {"An {nosuchrole}`word`.": "Unknown interpreted text role"},  # a plain one
}


@pytest.mark.e2e
def test_a_sphinx_warning_names_the_line_the_author_wrote(tiny, tmp_path):
    """An unknown role, a glued value no example glues: the build fails naming it at the line the
    author wrote, on an executed page and on a plain one."""
    copy = copy_of(tiny, tmp_path)
    for language in ("en", "es"):
        for name, wrong in WRONG.items():
            page = copy / "docs" / language / name
            page.write_text(page.read_text(encoding="utf-8") + "\n" + "\n\n".join(wrong) + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "execbook", "build"], cwd=copy, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 1
    for name, wrong in WRONG.items():
        lines = (copy / "docs" / "en" / name).read_text(encoding="utf-8").split("\n")
        for text, warning in wrong.items():
            expected = rf"^  docs/en/{re.escape(name)}:{lines.index(text) + 1}: WARNING: {re.escape(warning)}"
            assert re.search(expected, done.stderr, re.M), (expected, done.stderr)


@pytest.mark.e2e  # a build of a copy
def test_a_fence_that_swallows_a_cell_and_a_figure_fails_the_build_at_that_fence(tiny, tmp_path):
    """What MyST-NB's reading would lose of a page, when a fence left open swallows them (the cell
    that loads an example, a figure): the build stops at its check, naming the fence, before anything
    executes."""
    copy = copy_of(tiny, tmp_path)
    for language in ("en", "es"):
        page = copy / "docs" / language / "page.md"
        text = page.read_text(encoding="utf-8").replace("```{code-cell}", "````text\n```{code-cell}")
        page.write_text(text + "\n```{figure} figure.png\n```\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "execbook", "build"], cwd=copy, capture_output=True, text=True, timeout=300
    )
    lines = (copy / "docs" / "en" / "page.md").read_text(encoding="utf-8").split("\n")
    at = lines.index("````text") + 1
    assert done.returncode == 1 and "executing" not in done.stdout, done.stdout
    assert re.search(
        rf"^docs/en/page\.md:{at}: the ```` fence opened here \(text\) is never closed", done.stderr, re.M
    ), done.stderr


@pytest.mark.e2e  # a child process that runs for seconds
def test_run_says_what_it_runs_and_which_statement_runs_long_from_a_process_group_of_its_own(tiny, tmp_path):
    """`python -m execbook run` starts its example in a child process leading a group of its own (as
    the build starts a page's kernel, not a fork), says so, and names the statement that runs long."""
    copy = copy_of(tiny, tmp_path)
    example = copy / "examples" / "tiny.py"
    started = "import os, sys, time\nprint('alone', os.getpgrp() == os.getpid(), sys.argv)\ntime.sleep(2.5)\n"
    example.write_text(started + example.read_text(encoding="utf-8"), encoding="utf-8")
    code = "import sys; from execbook import build, cli; build.PROGRESS_S = 1; sys.exit(cli.main(['run', 'tiny']))"
    done = subprocess.run([sys.executable, "-c", code], cwd=copy, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "execbook: running examples/tiny.py in a process of its own ...", lines
    assert "alone True ['-c']" in lines, lines  # a process of its own, started afresh
    assert any(re.fullmatch(r"execbook: examples/tiny\.py:3 still running after \d+ s", line) for line in lines), lines


@pytest.mark.e2e  # a venv of its own and a build
def test_the_engine_installed_apart_builds_the_book_of_the_folder_it_runs_in(tmp_path_factory, installed_engine):
    """The engine as `pip install ./execbook` puts it (not editable: conftest's installed_engine) in a virtual
    environment outside the repository, then, in the tiny book's folder (no engine beside it), that
    environment's `python -m execbook build`: the engine finds the book from the current directory,
    not from its own file. The environment borrows this one's third-party packages (torch, Sphinx)
    through a .pth line: nothing downloads."""
    import os
    import sysconfig

    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    on_path = dict(os.environ, PATH=os.pathsep.join([str(venv / "bin"), os.environ["PATH"]]))  # its python first
    purelib = Path(
        subprocess.run(
            ["python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            env=on_path,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (purelib / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    for found in installed_engine.iterdir():  # the engine as pip install ./execbook puts it in site-packages
        (shutil.copytree if found.is_dir() else shutil.copy)(found, purelib / found.name)
    root = tmp_path_factory.mktemp("tiny-installed")
    write_book(root, engine=False)
    done = subprocess.run(
        ["python", "-c", BUILD],
        cwd=root,
        env=on_path,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((root / "built.json").read_text(encoding="utf-8"))
    assert Path(report["engine"]).is_relative_to(purelib), "the build ran the installed engine"
    page = (root / "docs" / "_build" / "html" / "en" / "page.html").read_text(encoding="utf-8")
    assert re.search(r"add up to <span[^>]*>\W*6\W*</span>", page), "the glued number is in the prose"
    elsewhere = subprocess.run(
        ["python", "-m", "execbook", "check"], cwd=venv, env=on_path, capture_output=True, text=True
    )
    assert elsewhere.returncode != 0 and elsewhere.stderr.startswith("execbook: error: no book in "), elsewhere.stderr
    assert "Traceback" not in elsewhere.stderr


def test_every_engine_module_imports_outside_a_book_whose_first_use_names_the_folder(tmp_path):
    """Importing the engine needs no book (Sphinx, MyST-NB or a tool may import it anywhere): the book
    is found when first needed, and its absence is then a NoBook that names the folder searched."""
    engine = ENGINE
    modules = sorted(".".join(p.relative_to(engine.parent).with_suffix("").parts) for p in engine.rglob("*.py"))
    code = f"""
import importlib
for name in {[m.removesuffix(".__init__") for m in modules]!r}:
    importlib.import_module(name)
from execbook import config
try:
    config.LANGUAGES
except config.NoBook as missing:
    print(missing.searched, missing, sep="\\n")
"""
    env = {name: value for name, value in os.environ.items() if name != config.ROOT_ENV}
    env["PYTHONPATH"] = os.pathsep.join([str(ENGINE.parent), env.get("PYTHONPATH", "")])  # this checkout's engine
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    searched, message = done.stdout.splitlines()
    assert Path(searched) == tmp_path.resolve() and message.startswith(f"no book in {searched} or above it"), message
    import execbook  # a module named as a public name would replace it once imported (execbook.gluing)

    assert {m.split(".")[1] for m in modules} & set(execbook.__all__) == set()


def test_a_book_changes_or_adds_the_engine_s_words_in_its_pyproject(monkeypatch, in_tiny_book):
    """The engine's words on a page come from one table per language (execbook/src/execbook/sphinxext/words.toml);
    [tool.book.words.<language>] changes one, or starts a language from the English table; a word
    the engine does not have is refused."""
    from execbook.sphinxext import words

    monkeypatch.setitem(vars(config), "WORDS", {"en": {"menu": "Sources"}, "fr": {"full_size": "Agrandir"}})
    words.words.cache_clear()
    try:
        assert words.words("en")["menu"] == "Sources" and words.words("en")["colab"] == words.WORDS["en"]["colab"]
        assert words.words("fr")["full_size"] == "Agrandir" and words.words("fr")["menu"] == words.WORDS["en"]["menu"]
        assert set(words.WORDS["es"]) == set(words.WORDS["en"]), "every word in each language of the engine"
        monkeypatch.setitem(vars(config), "WORDS", {"es": {"manu": "Fuentes"}})
        words.words.cache_clear()
        with pytest.raises(ValueError, match=r"\[tool.book.words.es\]: no such word manu"):
            words.words("es")
    finally:
        words.words.cache_clear()


@pytest.mark.e2e
def test_an_example_that_kills_its_process_is_named_at_its_line_by_the_build_and_by_run(tiny, tmp_path):
    """A crash in native code ends the page's kernel (the build) or the process (`execbook run`):
    both name the example's line and the signal, without a traceback of ours."""
    copy = copy_of(tiny, tmp_path)
    example = copy / "examples" / "tiny.py"
    example.write_text("import ctypes\n\nctypes.string_at(0)\n" + example.read_text(encoding="utf-8"), encoding="utf-8")
    said = "examples/tiny.py:3, the process ended while this statement ran: killed by SIGSEGV"
    for command, expected in (
        ("build", "page (en, es) · examples/tiny.py:3\n  the kernel ended while this statement ran: killed by SIGSEGV"),
        ("run", said),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "execbook", command, *(["tiny"] if command == "run" else [])],
            cwd=copy,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 1 and expected in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


COUNTED = """\
from pathlib import Path

counter = Path("runs.txt")  # not a source: each execution differs
runs = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(runs))
print("execution", runs)
"""


@pytest.mark.e2e
def test_a_page_executed_again_with_the_same_sources_publishes_the_new_execution(tiny, tmp_path):
    """What the execution cache holds is what is published: Sphinx reads again a page executed
    again (here by `execbook page`), although none of its sources changed."""
    copy = copy_of(tiny, tmp_path)
    example = copy / "examples" / "tiny.py"
    example.write_text(COUNTED + example.read_text(encoding="utf-8"), encoding="utf-8")
    page = copy / "docs" / "_build" / "html" / "en" / "page.html"
    for command, runs in (["build"], 1), (["page", "page"], 1), (["build"], 2):  # `page` publishes nothing
        done = subprocess.run([sys.executable, "-m", "execbook", *command], cwd=copy, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert f"execution {runs}" in page.read_text(encoding="utf-8"), command
    assert "0 page(s) executed" in done.stdout


@pytest.mark.e2e
def test_a_copy_an_install_leaves_in_an_ignored_folder_executes_nothing(tiny, tmp_path):
    """`pip install ./pkg` leaves pkg/build/lib/*.py: git ignores it, so neither the page's key
    nor its downloads change, and the build executes nothing."""
    copy = copy_of(tiny, tmp_path)
    (copy / ".gitignore").write_text("build/\n", encoding="utf-8")
    (copy / "tinypkg").mkdir()
    (copy / "tinypkg" / "__init__.py").write_text("VALUE = 1\n", encoding="utf-8")
    with open(copy / "examples" / "cases.toml", "a", encoding="utf-8") as manifest:
        manifest.write('reads = ["tinypkg"]\n')
    first = subprocess.run([sys.executable, "-m", "execbook", "build"], cwd=copy, capture_output=True, text=True)
    assert first.returncode == 0 and "1 page(s) executed" in first.stdout, first.stderr
    stray = copy / "tinypkg" / "build" / "lib" / "tinypkg" / "__init__.py"
    stray.parent.mkdir(parents=True)
    stray.write_text("VALUE = 2\n", encoding="utf-8")
    again = subprocess.run([sys.executable, "-m", "execbook", "build"], cwd=copy, capture_output=True, text=True)
    assert again.returncode == 0 and "0 page(s) executed" in again.stdout, again.stderr


@pytest.mark.e2e
def test_a_cell_runs_as_long_as_the_book_s_cell_timeout_setting_says(tiny, tmp_path):
    copy = copy_of(tiny, tmp_path)
    with (copy / "pyproject.toml").open("a", encoding="utf-8") as pyproject:
        pyproject.write("cell-timeout = 2\n")
    example = copy / "examples" / "tiny.py"
    example.write_text("import time\n\ntime.sleep(60)\n" + example.read_text(encoding="utf-8"), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "execbook", "build"], cwd=copy, capture_output=True, text=True)
    assert done.returncode == 1 and "examples/tiny.py:3" in done.stderr, done.stderr
    assert "still ran after 2 s ([tool.book] cell-timeout)" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.e2e
def test_a_page_links_into_another_book_by_its_local_inventory_and_check_names_a_label_it_lacks(tiny, tmp_path):
    """[tool.book.intersphinx.<name>]: Sphinx reads the other book's objects.inv offline (here the tiny
    book's own, as its build wrote it), and `check` names a label that inventory lacks at its line."""
    copy = copy_of(tiny, tmp_path)
    with (copy / "pyproject.toml").open("a", encoding="utf-8") as pyproject:
        pyproject.write('\n[tool.book.intersphinx.twin]\nurl = "https://example.org/twin/{language}/"\n')
        pyproject.write('inventory = "twin/{language}/objects.inv"\n')
    for language in ("en", "es"):
        (copy / "twin" / language).mkdir(parents=True)
        shutil.copy(copy / f"docs/_build/html/{language}/objects.inv", copy / "twin" / language)
        with (copy / "docs" / language / "index.md").open("a", encoding="utf-8") as index:
            index.write("\nSee {ref}`twin:tiny-page`.\n")
    done = subprocess.run([sys.executable, "-m", "execbook", "build"], cwd=copy, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    index = (copy / "docs/_build/html/en/index.html").read_text(encoding="utf-8")
    assert 'href="https://example.org/twin/en/page.html#tiny-page"' in index
    page = copy / "docs" / "en" / "index.md"
    page.write_text(page.read_text(encoding="utf-8").replace("twin:tiny-page", "twin:tiny-pag"), encoding="utf-8")
    line = page.read_text(encoding="utf-8").splitlines().index("See {ref}`twin:tiny-pag`.") + 1
    done = subprocess.run([sys.executable, "-m", "execbook", "check"], cwd=copy, capture_output=True, text=True)
    assert done.returncode == 1 and done.stdout == (
        f"docs/en/index.md:{line}: {{ref}}`twin:tiny-pag` names no label 'tiny-pag' in twin/en/objects.inv"
        " → did you mean `twin:tiny-page`?\n"
    ), done.stdout
