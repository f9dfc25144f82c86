"""Where a reader finds a page's source and runs it in Colab (execbook/src/execbook/sphinxext/links.py, downloads.py).

- The addresses, from pyproject.toml's [tool.book] (the repository, its source branch and the
  notebooks branch, each declared once); `pip install` of the project installs `minigpt` and what
  the shown code imports, which work outside any clone.
- The Colab notebook (downloads.notebook_download with colab=True, as the build writes it), on a
  small resolved page: the downloaded notebook with the Colab note and, first of its code, the cell that
  installs the project where it is missing; nothing of the book's build in its code. The install
  cell itself: what it installs (the repository's address, no clone), within 80 columns.
- The menu's template: downloads name their file, links that leave the site do not.
- The workflow publishes the build's Colab notebooks on the notebooks branch read from
  execbook/src/execbook/config.py, after the tests, from main only, with `contents: write` in that job alone.
- A real page's Colab notebook (theory/02, seconds) runs in a fresh kernel outside the repository,
  with the project installed as pip installs it (no clone): the install cell does nothing, each cell
  that must raise raises.
- On the built site (`site`, so end-to-end): every page of both languages links to its source
  file, which exists; every executed page, and only they, to its notebook in Colab; each Colab
  notebook the build wrote is that page's download with the note and the install cell.
"""

import ast
import json
import re
import subprocess
import sys

import nbformat
import pytest
import yaml
from test_downloads import BOOK_NOTEBOOK, BOOK_PAGE, PAGES, executed, reader_env, render
from test_site import html_pages

from execbook import config
from execbook.pages import notebook as page_notebook
from execbook.sphinxext import downloads, links
from execbook.sphinxext.words import words as ui

REPO = config.REPO
LANGUAGES = tuple(config.LANGUAGES)
WORKFLOW = REPO / ".github" / "workflows" / "docs.yml"
BUILD_ONLY = re.compile(r"\bbook\.kernel\b|\b_book\b|\bglue\w*\(|\bmyst_nb\b")  # what only the build has
SMALL_PAGE = "theory/02-autograd-engine"  # a few seconds in a fresh kernel


# ---------------------------------------------------------------- addresses


def test_the_addresses_come_from_the_declared_repository_and_branches():
    owner, name = links.github_repository(config.REPOSITORY)
    assert config.REPOSITORY == f"https://github.com/{owner}/{name}"
    assert links.source_url("es", "breaks/25-inplace-autograd.md") == (
        f"{config.REPOSITORY}/blob/{config.SOURCE_BRANCH}/docs/es/breaks/25-inplace-autograd.md"
    )
    assert links.colab_url("en", "theory/02-autograd-engine") == (
        f"https://colab.research.google.com/github/{owner}/{name}/blob/{config.NOTEBOOKS_BRANCH}/"
        "en/theory/02-autograd-engine.ipynb"
    )
    assert links.colab_file("en", "theory/02-autograd-engine") == config.COLAB / "en/theory/02-autograd-engine.ipynb"
    for wrong in ("https://gitlab.com/a/b", "https://github.com/a", "https://github.com/a/b/c"):
        with pytest.raises(ValueError):
            links.github_repository(wrong)
    assert links.github_repository("https://github.com/a/b.git/") == ("a", "b")


def test_config_answers_the_notebooks_branch_to_a_bare_python():
    done = subprocess.run(
        [sys.executable, "-I", str(REPO / "execbook" / "src" / "execbook" / "config.py"), "notebooks-branch"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == config.NOTEBOOKS_BRANCH != config.SOURCE_BRANCH


def test_installing_the_project_installs_minigpt_and_the_packages_pages_import(installed_project, tool_env, tmp_path):
    """What `pip install` of the project puts in site-packages, outside any clone: the packages the
    shown code imports work there; the engine, which reads the repository's pyproject.toml, does not."""
    found = {p.name for p in installed_project.iterdir() if (p / "__init__.py").is_file()}
    assert {"minigpt", "inplace_doctor", "tapegrad", "execbook", "phase25"} <= found
    env = dict(tool_env, PYTHONPATH=str(installed_project))
    code = "import minigpt, inplace_doctor, tapegrad; print(minigpt.__file__)"
    run = dict(cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)  # cwd: not the repository
    done = subprocess.run([sys.executable, "-c", code], **run)
    assert done.returncode == 0 and done.stdout.startswith(str(installed_project)), done.stderr
    done = subprocess.run([sys.executable, "-c", "import execbook.config as c; c.REPO"], **run)
    assert done.returncode == 1 and "pyproject.toml" in done.stderr


# ---------------------------------------------------------------- the Colab notebook


def colab(rest=BOOK_PAGE, cells=BOOK_NOTEBOOK, language="en"):
    return downloads.notebook_download(render(rest), executed(cells), "The title", language, colab=True)


def test_the_colab_notebook_is_the_download_with_its_note_and_the_install_cell_first():
    text = colab()
    assert text == colab()  # the same bytes for the same page
    out = nbformat.reads(text, as_version=4)
    nbformat.validate(out)
    download = nbformat.reads(
        downloads.notebook_download(render(BOOK_PAGE), executed(BOOK_NOTEBOOK), "The title", "en"), as_version=4
    )
    code = [c for c in out.cells if c.cell_type == "code"]
    assert code[0].source == links.install_cell() and code[0].outputs == [] and code[0].metadata == {}
    assert out.cells[2] is code[0]  # right after the title's cell and the note, before any other code
    note = ui("en")["colab_note"].format(title="The title", url="https://example.org/en/breaks/page.html")
    assert out.cells[1].source == note
    strip = lambda cells: [(c.cell_type, c.source, c.get("outputs"), c.metadata) for c in cells]  # noqa: E731
    assert strip(out.cells[:1] + out.cells[3:]) == strip(download.cells[:1] + download.cells[2:])
    assert [c.id for c in out.cells] == [f"cell-{i}" for i in range(1, len(out.cells) + 1)]
    assert out.metadata == download.metadata
    assert BUILD_ONLY.findall("\n".join(c.source for c in code)) == []


def test_a_page_that_opens_with_code_gets_the_note_and_the_install_cell_first():
    out = nbformat.reads(colab("CELL 0", [("code", "print(1)", [], [])], "es"), as_version=4)
    assert [c.cell_type for c in out.cells] == ["markdown", "code", "code"]
    assert out.cells[0].source.startswith("> Cuaderno de [The title]")
    assert out.cells[1].source == links.install_cell() and out.cells[2].source == "print(1)"


def test_the_install_cell_installs_the_project_from_its_address_without_its_dependencies():
    code = links.install_cell()
    assert max(len(line) for line in code.splitlines()) <= 80
    tree = ast.parse(code)
    imported = {
        alias.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names
    }
    assert imported == {"importlib", "subprocess", "sys", "minigpt"}  # nothing of the book's build
    guard = next(node for node in tree.body if isinstance(node, ast.Try))
    assert ast.unparse(guard.body) == "import minigpt" and ast.unparse(guard.handlers[0].type) == "ModuleNotFoundError"
    install = ast.unparse(guard.handlers[0]).replace("'", '"')
    assert '"pip", "install"' in install and '"--no-deps"' in install and "sys.executable" in install
    assert "clone" not in code and "--editable" not in code and "sys.path" not in code
    assert f'project = "git+{config.REPOSITORY}@{config.SOURCE_BRANCH}"' in code
    assert f"also = {config.COLAB_INSTALL!r}" in code


# ---------------------------------------------------------------- the menu


def menu(**downloads_context):
    from jinja2 import Environment, FileSystemLoader

    environment = Environment(
        loader=FileSystemLoader(str(REPO / "execbook" / "src" / "execbook" / "sphinxext" / "templates"))
    )
    return environment.get_template("download-menu.html").render(book_downloads=downloads_context)


def test_the_menu_names_the_file_of_a_download_and_not_of_a_link_away():
    html = menu(
        menu="Code",
        label="This page's code",
        links=[
            {"text": "code (.py)", "href": "../_downloads/x.py", "filename": "x.py"},
            {"text": "open in Colab", "href": "https://colab.research.google.com/github/o/r/blob/b/en/x.ipynb"},
            {"text": "source on GitHub (.md)", "href": "https://github.com/o/r/blob/main/docs/en/x.md"},
        ],
    )
    assert '<li><a href="../_downloads/x.py" download="x.py">code (.py)</a></li>' in html
    assert (
        '<li class="book-link-away"><a href="https://colab.research.google.com/github/o/r/blob/b/en/x.ipynb">'
        "open in Colab</a></li>"
    ) in html
    assert html.count("download=") == 1 and html.count("book-link-away") == 2
    assert html.replace("&#39;", "'").count('"This page\'s code"') == 2  # the summary's title, the list's label
    assert menu().strip() == ""  # a page without a menu (search, genindex)


def test_the_menu_words_exist_in_both_languages():
    for language in LANGUAGES:
        words = ui(language)
        for key in ("menu", "menu_label", "source_label", "colab", "source", "colab_note"):
            assert words[key].strip(), (language, key)
        assert "{suffix}" in words["source"] and "{title}" in words["colab_note"] and "{url}" in words["colab_note"]
    assert ui("es")["colab"] != ui("en")["colab"]


# ---------------------------------------------------------------- the workflow


def workflow():
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def test_the_workflow_publishes_the_build_s_colab_notebooks_on_their_branch():
    flow = workflow()
    jobs = flow["jobs"]
    read = " ".join(step.get("run", "") for step in jobs["releases"]["steps"])
    assert "notebooks-branch=$(python3 execbook/src/execbook/config.py notebooks-branch)" in read
    assert jobs["releases"]["outputs"]["notebooks-branch"] == "${{ steps.read.outputs.notebooks-branch }}"
    upload = next(step for step in jobs["book"]["steps"] if step.get("name") == "Upload the Colab notebooks")
    assert upload["uses"].startswith("actions/upload-artifact@")
    assert upload["with"]["path"].rstrip("/") == config.COLAB.relative_to(REPO).as_posix()
    assert upload["if"] == "matrix.torch == needs.releases.outputs.default"  # the deployed site's build
    job = jobs["notebooks"]
    assert set(job["needs"]) == {"releases", "book", "test"} and job["if"] == jobs["deploy"]["if"]
    assert f"refs/heads/{config.SOURCE_BRANCH}" in job["if"] and flow[True]["push"]["branches"] == [
        config.SOURCE_BRANCH
    ]
    assert job["permissions"] == {"contents": "write"}
    # one branch per book: this one's, and the engine's documentation's (execbook/docs)
    book = {"artifact": upload["with"]["name"], "branch": "${{ needs.releases.outputs.notebooks-branch }}"}
    assert book in job["strategy"]["matrix"]["include"] and job["env"]["BRANCH"] == "${{ matrix.branch }}"
    download = job["steps"][0]
    assert (
        download["uses"].startswith("actions/download-artifact@")
        and download["with"]["name"] == "${{ matrix.artifact }}"
    )
    push = job["steps"][1]["run"]
    assert "HEAD:refs/heads/$BRANCH" in push and "--force" in push and "$TOKEN" in push
    assert job["steps"][1]["env"]["TOKEN"] == "${{ github.token }}"
    # least privilege: no other job may write to the repository
    assert [name for name, other in jobs.items() if other.get("permissions", {}).get("contents") == "write"] == [
        "notebooks"
    ]
    assert flow["permissions"] == {}


def test_every_action_is_pinned_by_commit_with_its_release_in_a_comment():
    lines = [line.strip() for line in WORKFLOW.read_text(encoding="utf-8").splitlines() if "uses:" in line]
    assert lines and all(
        re.fullmatch(r"(- )?uses: [\w.-]+/[\w.-]+@[0-9a-f]{40}  # v\d+(\.\d+)*", line) for line in lines
    ), lines


# ---------------------------------------------------------------- a real page, run as in Colab


def small_page_colab_notebook():
    """SMALL_PAGE's Colab notebook, its code cells as the page shows them (no Sphinx: a title and
    the code cells a reader sees, by index, stand for the resolved page)."""
    source = page_notebook(REPO / "docs" / "en" / f"{SMALL_PAGE}.md")
    shown = [i for i, c in enumerate(source.cells) if c.cell_type == "code" and "remove-cell" not in downloads.tags(c)]
    rest = "Title\n=====\n\n" + "\n\n".join(f"CELL {i}" for i in shown)
    return downloads.notebook_download(render(rest), source, "Title", "en", colab=True)


def test_a_small_page_s_colab_notebook_runs_in_a_fresh_kernel(tmp_path, tool_env, installed_project):
    notebook = nbformat.reads(small_page_colab_notebook(), as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code[0].source == links.install_cell() and len(code) > 5
    assert BUILD_ONLY.findall("\n".join(c.source for c in code)) == []
    path, result = tmp_path / "page.ipynb", tmp_path / "result.json"
    nbformat.write(notebook, path)
    cwd = tmp_path / "reader"
    cwd.mkdir()
    # the project installed, not this checkout: the kernel imports it from installed_project
    env = reader_env(tool_env, tmp_path / "cache", installed_project)
    done = subprocess.run(
        [sys.executable, str(REPO / "tests" / "test_downloads.py"), str(path), str(result)],
        cwd=cwd,
        env=dict(env, BOOK_ROOT=str(REPO)),  # the runner imports the engine; the kernel it starts does not
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    found = json.loads(result.read_text())
    assert found["raised"] == found["expected"] and found["expected"], found
    assert 0 not in found["raised"]
    assert [p.name for p in cwd.iterdir()] == []  # the project was there: nothing installed, nothing written


# ---------------------------------------------------------------- on the built site

MENU = re.compile(r'<details class="book-downloads">.*?</details>', re.S)
AWAY = re.compile(r'<li class="book-link-away"><a href="([^"]+)">([^<]+)</a></li>')


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_links_to_its_source_and_every_executed_page_to_colab(site, language):
    words = ui(language)
    seen = []
    for html_page in html_pages(site, language):
        page = html_page.relative_to(site / language).with_suffix("").as_posix()
        if page in ("search", "genindex"):
            continue
        menus = MENU.findall(html_page.read_text(encoding="utf-8"))
        assert len(menus) == 1, f"{language}/{page}: {len(menus)} menus"
        away = AWAY.findall(menus[0])
        source = next(p for p in (REPO / "docs" / language).glob(f"{page}.*") if p.suffix in (".md", ".rst", ".ipynb"))
        expected = [
            (
                links.source_url(language, source.relative_to(REPO / "docs" / language).as_posix()),
                words["source"].format(suffix=source.suffix),
            )
        ]
        if page in PAGES:
            expected.insert(0, (links.colab_url(language, page), words["colab"]))
        assert away == expected, f"{language}/{page}"
        assert away[-1][0] == f"{config.REPOSITORY}/blob/{config.SOURCE_BRANCH}/docs/{language}/{page}{source.suffix}"
        label = words["menu_label" if page in PAGES else "source_label"]
        assert f'aria-label="{label}"' in menus[0].replace("&#39;", "'") and f">{words['menu']}</span>" in menus[0]
        seen.append(page)
    assert set(PAGES) < set(seen) and "index" in seen and "glossary" in seen


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_colab_notebooks_are_the_downloads_with_the_note_and_the_install_cell(site, language):
    written = sorted(
        p.relative_to(config.COLAB / language).with_suffix("").as_posix()
        for p in (config.COLAB / language).rglob("*.ipynb")
    )
    assert written == sorted(PAGES)  # one per executed page, no other
    for page in PAGES:
        out = nbformat.read(links.colab_file(language, page), as_version=4)
        nbformat.validate(out)
        download = nbformat.read(site / language / downloads.FOLDER / f"{page}.ipynb", as_version=4)
        code = [c for c in out.cells if c.cell_type == "code"]
        assert code[0].source == links.install_cell() and out.cells.index(code[0]) == 2, page
        assert out.cells[1].source.startswith(ui(language)["colab_note"].split("[", 1)[0])
        strip = lambda cells: [(c.cell_type, c.source, c.get("outputs"), c.metadata) for c in cells]  # noqa: E731
        assert strip(out.cells[:1] + out.cells[3:]) == strip(download.cells[:1] + download.cells[2:]), page
        assert BUILD_ONLY.findall("\n".join(c.source for c in code)) == [], page
