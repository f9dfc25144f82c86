"""The downloads of the executed pages (execbook/src/execbook/sphinxext/downloads.py).

- The Markdown rules and the notebook and script transformations, on small resolved pages (no build).
- On the built site (the `site` fixture: nox -s e2e): every executed page offers its notebook and
  its script in the page's language, from a menu whose links resolve; the notebook is the page's
  (its title, its code, no hidden cell of the book, no MyST syntax left, no path of the machine).
- Each page's downloads run as a reader runs them, with the project installed as `pip install`
  installs it (not editable: no file of the repository reachable) and cwd outside the repository:
  its notebook top to bottom in a fresh kernel (nbclient), its script with
  `python file.py`; one in Spanish and the other in English, the languages swapping from page to
  page, so that both languages' notebooks and scripts run. The two languages' downloads of a page
  are one program (the same code cells; scripts alike but for their comments and printed words),
  which the structural test proves; running both would run the same code twice. Not the build's
  store: the runs share one cache of minigpt's experiments of the test's own (reader_env), so that
  each experiment is computed once, by the first run that needs it, in a reader's environment.
"""

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urljoin

import nbformat
import pytest
from docutils import nodes as docutils_nodes
from test_site import MACHINE_PATHS, html_pages, server, watch  # noqa: F401 - fixtures, shared

from execbook.pages import executed, magics_commented
from execbook.sphinxext import downloads
from execbook.sphinxext.words import words as ui

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
LANGUAGES = ("es", "en")
WORKERS = 2  # the machine's cores: two runs side by side
RUN_TIMEOUT_S = 900

PAGES = list(executed("en"))


# ---------------------------------------------------------------- the rules, on small inputs

URL = "https://example.org/en/breaks/page.html"


def doctree(rest):
    """A resolved page: reST parsed by docutils, each paragraph "CELL n" made the code cell of the
    notebook's cell n (as MyST-NB leaves it in the doctree)."""
    from docutils.core import publish_doctree

    tree = publish_doctree(rest, settings_overrides={"report_level": 5, "doctitle_xform": False})
    for paragraph in list(tree.findall(docutils_nodes.paragraph)):
        if paragraph.astext().startswith("CELL "):
            cell = docutils_nodes.container(nb_element="cell_code", cell_index=int(paragraph.astext()[5:]))
            paragraph.replace_self(cell)
    return tree


def render(rest, srcdir="."):
    return downloads.Markdown(URL, Path(srcdir)).render(doctree(rest))


def test_inline_markup_links_and_code():
    page = render(
        "A *word*, a **strong** one, ``h.add_(x)``, a `link <../glossary.html#term-x>`_, "
        "`an anchor`_ and 2 * 3 < [4].\n\n.. _an anchor:\n\nHere."
    )
    assert page.cells == [
        "A *word*, a **strong** one, `h.add_(x)`, a "
        "[link](https://example.org/en/glossary.html#term-x), [an anchor](#an-anchor) and "
        '2 \\* 3 \\< \\[4\\].\n\n<a id="an-anchor"></a>\n\nHere.'
    ]


def test_sections_lists_and_definition_lists():
    page = render(
        "Title\n=====\n\nPart\n----\n\n- one\n- two, on\n  two lines\n\n1. first\n\n``term``\n    Its definition.\n"
    )
    assert page.cells == [
        "# Title\n\n## Part\n\n- one\n\n- two, on\n  two lines\n\n1. first\n\n- **`term`**: Its definition."
    ]


def test_code_cells_cut_the_markdown_and_know_their_section():
    page = render("Title\n=====\n\nBefore.\n\nCELL 2\n\nPart\n----\n\nCELL 5\n\nAfter.")
    assert page.cells == ["# Title\n\nBefore.", 2, "## Part", 5, "After."]
    assert page.headings == {2: "Title", 5: "Part"}


def test_admonitions_dropdowns_and_tabs_degrade_to_plain_markdown():
    tree = doctree(".. note::\n\n   A note.\n\n.. admonition:: In *short*\n\n   - one\n   - two\n\nEnd.")
    dropdown = docutils_nodes.Element()
    dropdown.tagname = "dropdown_main"
    dropdown += docutils_nodes.Element(
        "", docutils_nodes.Text("The whole "), docutils_nodes.literal(text="Block.forward")
    )
    dropdown += docutils_nodes.paragraph(text="Hidden.")
    tabs = docutils_nodes.container(classes=["sphinx-tabs"])
    tablist = docutils_nodes.Element()
    for title in ("Run A", "Run B"):
        button = docutils_nodes.Element("", docutils_nodes.Text(title))
        button.tagname = "button"
        tablist += button
    tabs += tablist
    tabs += [
        docutils_nodes.container("", docutils_nodes.paragraph(text=text), classes=["sphinx-tabs-panel"])
        for text in ("First.", "Second.")
    ]
    tree += [dropdown, tabs]
    assert downloads.Markdown(URL, Path(".")).render(tree).cells == [
        "> **Note**\n>\n> A note.\n\n> **In *short***\n>\n> - one\n>\n> - two\n\nEnd.\n\n"
        "<details><summary>The whole <code>Block.forward</code></summary>\n\nHidden.\n\n</details>\n\n"
        "**Run A**\n\nFirst.\n\n**Run B**\n\nSecond."
    ]


def test_a_code_cell_inside_an_admonition_keeps_its_place_and_the_prose_around_it():
    page = render(".. note::\n\n   Before.\n\n   CELL 3\n\n   More.\n\nAfter.")
    assert [cell if cell == 3 else cell.rstrip(">\n") for cell in page.cells] == [
        "> **Note**\n>\n> Before.",
        3,
        "> More.\n\nAfter.",
    ]


def test_figures_become_attachments_html_stays_and_the_stamp_goes(tmp_path):
    (tmp_path / "curve.png").write_bytes(b"png bytes")
    tree = doctree(
        ".. image:: curve.png\n   :alt: A [loss] curve.\n\n.. raw:: html\n\n   <table><tr><td>x</td></tr></table>"
        "\n\nCode::\n\n   print(1)\n\nCELL 1\n\n.. image:: curve.png\n"
    )
    stamp = docutils_nodes.container(
        "", docutils_nodes.raw("", "<div>2026-01-01</div>", format="html"), classes=["no-search"]
    )
    tree.insert(0, stamp)
    page = downloads.Markdown(URL, tmp_path).render(tree)
    assert page.cells == [
        "![A (loss) curve.](attachment:curve.png)\n\n<table><tr><td>x</td></tr></table>\n\nCode:\n\n```\nprint(1)\n```",
        1,
        "![](attachment:curve.png)",
    ]
    encoded = {"curve.png": {"image/png": "cG5nIGJ5dGVz"}}
    assert page.attachments == {0: encoded, 2: encoded}


def executed(cells):
    """A notebook as the build executed it: cells as (kind, source, tags, outputs)."""
    notebook = nbformat.v4.new_notebook(
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3"},
            "file_format": "mystnb",
            "source_map": [1, 2],
        }
    )
    for kind, source, tags, outputs in cells:
        metadata = {"tags": tags} if tags else {}
        if kind == "code":
            cell = nbformat.v4.new_code_cell(
                source,
                metadata=dict(metadata, load="../x.py", execution={"iopub.status.idle": "2026-01-01T00:00:00Z"}),
                outputs=outputs,
                execution_count=len(notebook.cells),
            )
        else:
            cell = nbformat.v4.new_markdown_cell(source, metadata=metadata)
        notebook.cells.append(cell)
    return notebook


GLUE_PREFIX = "application/papermill.record/"  # MyST-NB's glue outputs


def glue_output(key, value):
    return nbformat.v4.new_output(
        "display_data",
        data={GLUE_PREFIX + "text/plain": value},
        metadata={"scrapbook": {"name": key, "mime_prefix": GLUE_PREFIX}},
    )


PRINTED = nbformat.v4.new_output("stream", name="stdout", text="4\n")
BOOK_NOTEBOOK = [  # the page's notebook: its own Markdown cells are not used (the doctree is)
    ("markdown", "# The title", [], []),
    ("code", "import execbook.kernel as _book\n_book.begin()", ["remove-cell"], []),
    ("code", "n = 4\nprint(n)", ["hide-input"], [PRINTED, glue_output("n", "4")]),
    ("code", '_book.check("example")', ["remove-cell"], [glue_output("n", "4")]),
    (
        "code",
        'message = """first line\nsecond line"""\nraise ValueError(message.splitlines()[1])',
        ["raises-exception"],
        [nbformat.v4.new_output("error", ename="ValueError", evalue="second line", traceback=[])],
    ),
    ("code", "print('quiet')", ["remove-output"], [PRINTED]),
    ("code", "print(n + 1)", [], [PRINTED]),
]
BOOK_PAGE = "The title\n=========\n\nIt printed 4.\n\nCELL 2\n\nCELL 4\n\nCELL 5\n\nNext\n----\n\nEnd.\n\nCELL 6\n"


def test_the_notebook_keeps_what_a_reader_sees_and_runs():
    def made():
        return downloads.notebook_download(render(BOOK_PAGE), executed(BOOK_NOTEBOOK), "The title", "en")

    text = made()
    assert text == made()
    out = nbformat.reads(text, as_version=4)
    nbformat.validate(out)
    assert [c.cell_type for c in out.cells] == ["markdown", "markdown", "code", "code", "code", "markdown", "code"]
    assert out.cells[0].source == "# The title\n\nIt printed 4."
    assert "[The title](https://example.org/en/breaks/page.html)" in out.cells[1].source
    code = [c for c in out.cells if c.cell_type == "code"]
    assert "_book" not in "".join(c.source for c in code)
    assert [c.metadata for c in code] == [
        {"tags": ["hide-input"]},
        {"tags": ["raises-exception"]},
        {"tags": ["remove-output"]},
        {},
    ]
    assert [len(c.outputs) for c in code] == [1, 1, 0, 1]  # no glue record, no output where the page hides it
    assert [c.execution_count for c in code] == [2, 4, 5, 6]  # the build's: tracebacks name them
    assert [c.id for c in out.cells] == [f"cell-{i}" for i in range(1, 8)]
    assert out.metadata == {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}


def test_streams_are_shown_as_the_page_shows_them():
    """The execution merged each stream's chunks, stdout first (execbook/tests/test_kernels.py); the download
    shows them as MyST-NB's page does (nb_merge_streams), not as they were stored."""
    error = nbformat.v4.new_output("error", ename="E", evalue="v", traceback=[])
    stored = [
        nbformat.v4.new_output("stream", name="stderr", text="w\n"),
        nbformat.v4.new_output("stream", name="stdout", text="a\nb \rc\n\n"),
        error,
    ]
    notebook = executed([("code", "x = 1", [], stored)])
    out = nbformat.reads(downloads.notebook_download(render("T\n=\n\nCELL 0"), notebook, "T", "en"), as_version=4)
    code = [c for c in out.cells if c.cell_type == "code"]
    shown = [(o.output_type, o.get("name"), o.get("text")) for c in code for o in c.outputs]
    assert shown == [("stream", "stdout", "a\nc\n"), ("stream", "stderr", "w\n"), ("error", None, None)]
    assert stored[1].text == "a\nb \rc\n\n" and len(stored) == 3  # the page's own: untouched


def test_the_script_runs_on_past_an_expected_error(tmp_path):
    script = downloads.script_download(render(BOOK_PAGE), executed(BOOK_NOTEBOOK), "The title", "en")
    assert "_book" not in script and "# %% The title\nn = 4" in script and "# %% Next\nprint(n + 1)" in script
    assert '    message = """first line\nsecond line"""' in script  # a string's lines are not indented
    (tmp_path / "page.py").write_text(script, encoding="utf-8")
    done = subprocess.run([sys.executable, "page.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "4\nExpected error: ValueError: second line\nquiet\n5\n"
    quiet = downloads.script_download(
        render("T\n=\n\nCELL 0"), executed([("code", "x = 1", ["raises-exception"], [])]), "T", "es"
    )
    (tmp_path / "quiet.py").write_text(quiet, encoding="utf-8")
    done = subprocess.run([sys.executable, "quiet.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.stdout == ui("es")["not_raised"] + "\n"


def test_the_files_a_page_s_code_reads_come_with_its_downloads(tmp_path):
    """An example whose shown code names a file its manifest entry reads (the diagnoser's script, the
    justfile) gets it written by the download's first code cell, where it is missing; a file the
    hidden checks read (the compatibility page's examples/fix.py) does not come."""
    from execbook import cases

    def cell(name):
        shown = cases.split(cases.manifest()[name].path)[0]
        return nbformat.v4.new_code_cell(shown, metadata={"example": name})

    page = nbformat.v4.new_notebook(cells=[cell("gated_mlp"), cell("diagnose_gated_mlp"), cell("compat_tables")])
    files = downloads.read_files(page)
    assert files == {"examples/gated_mlp.py": (REPO / "examples" / "gated_mlp.py").read_text(encoding="utf-8")}
    assert downloads.read_files(nbformat.v4.new_notebook(cells=[cell("reproducer")])).keys() == {"justfile"}
    code = downloads.files_code(files, "en")
    assert max(len(line) for line in code.split("\n")) <= 80
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "gated_mlp.py").write_text("mine", encoding="utf-8")
    for cwd, expected in ((tmp_path, "mine"), (tmp_path / "elsewhere", files["examples/gated_mlp.py"])):
        cwd.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-c", code], cwd=cwd, check=True, timeout=60)
        assert (cwd / "examples" / "gated_mlp.py").read_text(encoding="utf-8") == expected  # never over a reader's


# ---------------------------------------------------------------- on the built site

MENU = re.compile(r'<details class="book-downloads">.*?</details>', re.S)
MENU_LINK = re.compile(r'<a href="([^"]+)" download="([^"]+)">([^<]+)</a>')
LEFT_OVER_MYST = re.compile(r"\{[\w:.+-]+\}`|^\s*(:{3,}|`{3,})\{|^\([^()\s]+\)=\s*$", re.M)


def download(site, language, page, suffix):
    return site / language / "_downloads" / f"{page}{suffix}"


def html_title(html):
    """The page's <h1>, as text (the heading's link mark left out)."""
    import html as entities

    found = re.search(r'<h1>([^\n]*?)<a class="headerlink"', html)
    return entities.unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip()


@pytest.mark.parametrize("language", LANGUAGES)
def test_executed_pages_and_only_they_offer_both_downloads_in_their_language(site, language):
    words = ui(language)
    offered = []
    for html_page in html_pages(site, language):
        html = html_page.read_text(encoding="utf-8")
        menus = MENU.findall(html)  # every page with a source has one (tests/test_reader_links.py)
        links = MENU_LINK.findall(menus[0]) if menus else []
        if not links:
            continue
        assert len(menus) == 1, html_page
        page = html_page.relative_to(site / language).with_suffix("").as_posix()
        offered.append(page)
        assert f">{words['menu']}</span></summary>" in menus[0] and f'aria-label="{words["menu_label"]}"' in menus[0]
        assert [text for _, _, text in links] == [words["notebook"], words["script"]]
        for (href, filename, _), suffix in zip(links, (".ipynb", ".py"), strict=True):
            target = (html_page.parent / href).resolve()
            assert target == download(site, language, page, suffix).resolve() and target.is_file(), href
            assert filename == page.rsplit("/", 1)[-1] + suffix
    assert offered == sorted(PAGES)


@pytest.mark.parametrize("language,width", [("es", 390), ("en", 1280)])
def test_the_menu_works_with_the_keyboard_on_a_phone_and_a_desktop(server, browser, language, width):  # noqa: F811
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": width, "height": 800})
    problems = watch(page)
    page.goto(f"{server}/{language}/breaks/25-inplace-autograd.html")
    menu = page.locator("details.book-downloads")
    summary = menu.locator("summary")
    expect(summary).to_be_visible()
    assert summary.evaluate("e => e.textContent.trim()") == ui(language)["menu"]  # its name
    summary.focus()
    page.keyboard.press("Enter")
    links = menu.locator("a")
    expect(links.first).to_be_visible()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == ui(language)["notebook"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # the open menu fits
    for i in range(links.count()):
        if links.nth(i).get_attribute("download") is None:
            continue  # a link that leaves the site (Colab, GitHub): tests/test_reader_links.py
        assert page.request.get(urljoin(page.url, links.nth(i).get_attribute("href"))).status == 200
    page.keyboard.press("Escape")
    expect(links.first).to_be_hidden()
    assert page.evaluate("document.activeElement.tagName") == "SUMMARY"
    summary.click()
    page.mouse.click(5, 700)  # a click elsewhere closes it too
    expect(links.first).to_be_hidden()
    page.close()
    assert problems == []


def read_download(site, language, page):
    return nbformat.read(download(site, language, page, ".ipynb"), as_version=4)


def shown_in(cell, language):
    from execbook import cases, comments
    from execbook.pages import magics_shown

    name = cell.metadata.get("example")
    return (
        cell.source
        if name is None
        else magics_shown(comments.shown(cases.split(cases.manifest()[name].path)[0], language)).rstrip("\n")
    )


@pytest.mark.parametrize("page", PAGES)
def test_the_downloaded_notebook_is_the_page_in_its_language(site, page):
    from execbook.pages import notebook as page_notebook

    code = {}
    for language in LANGUAGES:
        notebook = read_download(site, language, page)
        nbformat.validate(notebook)
        html = (site / language / f"{page}.html").read_text(encoding="utf-8")
        title = notebook.cells[0].source.split("\n# ", 1)[-1].split("\n")[0].removeprefix("# ")
        assert downloads.plain(title) == html_title(html)
        assert not any("remove-cell" in downloads.tags(c) for c in notebook.cells)
        prose = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
        assert LEFT_OVER_MYST.findall(prose) == []
        source = page_notebook(DOCS / language / f"{page}.md")
        kept = [  # an example's code with the comments of the language (execbook.comments)
            (shown_in(c, language), downloads.tags(c))
            for c in source.cells
            if c.cell_type == "code" and "remove-cell" not in downloads.tags(c)
        ]
        shown = [c for c in notebook.cells if c.cell_type == "code"]
        files = downloads.read_files(source)  # first, the cell that writes the files the page's code reads
        if files:
            assert shown[0].source == downloads.files_code(files, language) and shown[0].outputs == []
            shown = shown[1:]
        code[language] = [(c.source, downloads.tags(c)) for c in shown]
        assert code[language] == kept  # the page's code, every cell a reader sees, tags and all
        assert all(c.outputs for c in shown if downloads.REMOVE_OUTPUT not in downloads.tags(c))
        for suffix in (".ipynb", ".py"):
            text = download(site, language, page, suffix).read_text(encoding="utf-8")
            assert MACHINE_PATHS.findall(text) == [], f"{language}/{page}{suffix}"
    programs = {
        lang: [(ast.dump(ast.parse(magics_commented(source))), tags) for source, tags in code[lang]] for lang in code
    }
    assert programs["es"] == programs["en"]  # one program: only comments differ
    assert program(site, "es", page) == program(site, "en", page)


def program(site, language, page):
    """A page's script as the program it runs: comments dropped (a syntax tree), its printed words
    put back into English."""
    text = download(site, language, page, ".py").read_text(encoding="utf-8")
    for key in ("expected", "not_raised"):
        text = text.replace(repr(ui(language)[key]), repr(ui("en")[key]))
    return ast.dump(ast.parse(text))


# ---------------------------------------------------------------- run as a reader would


def kernel_config(sockets):
    """nbclient's configuration for a reader's fresh Jupyter kernel: the kernel listens on IPC
    sockets in the folder `sockets` (over TCP, ipykernel 7 warns that it runs without encryption);
    the path must be absolute, as the kernel starts in the page's folder."""
    from traitlets.config import Config

    return Config(
        {
            "KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel")},
            # every output is in once the last cell ends: a graceful shutdown only waits
            "NotebookClient": {"shutdown_kernel": "immediate"},
        }
    )


def execute_notebook(path, result):
    """Run a notebook's code in a fresh kernel (the outputs it came with cleared; the kernel's
    PYTHONPATH is READER_PYTHONPATH where set), stopping at an error in a cell not tagged
    raises-exception; write {"raised": [...], "expected": [...]} (the
    indexes of the code cells that raised, and of those tagged) to `result`."""
    from nbclient import NotebookClient

    if os.environ.get("READER_PYTHONPATH"):  # the kernel's, not this runner's (it imports the engine)
        os.environ["PYTHONPATH"] = os.environ["READER_PYTHONPATH"]
    os.environ.pop("BOOK_ROOT", None)  # the runner's book: not the reader's kernel's
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    for cell in code:
        cell.outputs = []
    with tempfile.TemporaryDirectory(prefix="kernel-") as sockets:
        NotebookClient(
            notebook,
            timeout=RUN_TIMEOUT_S,
            kernel_name="python3",
            config=kernel_config(sockets),
            resources={"metadata": {"path": os.getcwd()}},
        ).execute()
    Path(result).write_text(
        json.dumps(
            {
                "raised": [i for i, cell in enumerate(code) if any(o.output_type == "error" for o in cell.outputs)],
                "expected": [i for i, cell in enumerate(code) if downloads.RAISES in downloads.tags(cell)],
            }
        )
    )


def reader_env(tool_env, cache, installed_project):
    """A reader's environment: the project installed as pip installs it (READER_PYTHONPATH: the
    kernel's PYTHONPATH, or a script's), not the build's store. The test's runs share one folder of
    minigpt's experiments (MINIGPT_CACHE, `cache`): what the first run of a page computed, the runs
    after it read back, as the book's build does."""
    env = {k: v for k, v in tool_env.items() if k not in ("BOOK_STORE", "BOOK_REPO_ROOT")}
    Path(cache).mkdir(parents=True, exist_ok=True)
    return dict(env, MINIGPT_CACHE=str(cache), READER_PYTHONPATH=str(installed_project), MPLBACKEND="Agg")


# page -> (the language its notebook runs in, its script's): the languages swap from page to page
RUNS = {page: (LANGUAGES[i % 2], LANGUAGES[(i + 1) % 2]) for i, page in enumerate(PAGES)}


def test_each_language_runs_as_a_notebook_and_as_a_script():
    assert {notebook for notebook, _ in RUNS.values()} == {script for _, script in RUNS.values()} == set(LANGUAGES)


def jobs():
    """(language, page, suffix): the notebooks first, so that the trainings they share with the
    scripts are computed early, the biggest page first of all."""
    ordered = sorted(PAGES, key=lambda page: page != "breaks/25-inplace-autograd")
    return [(RUNS[page][i], page, suffix) for i, suffix in enumerate((".ipynb", ".py")) for page in ordered]


@pytest.fixture(scope="module")
def runs(site, tool_env, tmp_path_factory, made_once, installed_project):
    """{(language, page, suffix): {"returncode", "output", "seconds", ...}} of each page's notebook
    and script (RUNS), run from a folder outside the repository with the project installed as pip
    installs it (installed_project: no clone, no editable install), two at a time."""
    made_once("runs")
    root = tmp_path_factory.mktemp("downloads")
    env = reader_env(tool_env, root / "cache", installed_project)

    def run(job):
        language, page, suffix = job
        cwd = root / f"{language}-{page.replace('/', '-')}{suffix.replace('.', '-')}"
        cwd.mkdir()
        path = download(site, language, page, suffix)
        result = cwd / "result.json"
        command = [sys.executable, str(path)] if suffix == ".py" else [sys.executable, __file__, str(path), str(result)]
        # the runner (this module) imports the engine, which needs the book; the reader's kernel does not
        here = dict(env, PYTHONPATH=env["READER_PYTHONPATH"]) if suffix == ".py" else dict(env, BOOK_ROOT=str(REPO))
        start = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, env=here, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        found = json.loads(result.read_text()) if result.is_file() else {}
        return job, dict(
            found, returncode=done.returncode, output=done.stdout + done.stderr, seconds=time.perf_counter() - start
        )

    start = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        results = dict(pool.map(run, jobs()))
    seconds = time.perf_counter() - start
    print(
        f"\ndownloads: {len(results)} runs in {seconds:.0f} s wall time ({WORKERS} at a time): "
        + ", ".join(f"{lang}/{page}{suffix} {r['seconds']:.0f} s" for (lang, page, suffix), r in results.items())
    )
    return results


@pytest.mark.parametrize("page,language", [(page, notebook) for page, (notebook, _) in RUNS.items()])
def test_the_downloaded_notebook_runs_in_a_fresh_kernel(runs, language, page):
    run = runs[language, page, ".ipynb"]
    assert run["returncode"] == 0, run["output"][-3000:]
    assert run["raised"] == run["expected"], "a raises-exception cell must raise, and no other cell"


@pytest.mark.parametrize("page,language", [(page, script) for page, (_, script) in RUNS.items()])
def test_the_downloaded_script_runs_with_python(runs, site, language, page):
    run = runs[language, page, ".py"]
    assert run["returncode"] == 0, run["output"][-3000:]
    expected = [c for c in read_download(site, language, page).cells if downloads.RAISES in downloads.tags(c)]
    words = ui(language)
    printed = [line for line in run["output"].splitlines() if line.startswith(words["expected"])]
    assert len(printed) == len(expected) and words["not_raised"] not in run["output"]


if __name__ == "__main__":  # python tests/test_downloads.py NOTEBOOK RESULT: one run of `runs`
    execute_notebook(*sys.argv[1:])
