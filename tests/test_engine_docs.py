"""The engine's own documentation, execbook/docs: an execbook book of its own, without torch. The
build runs every example on it (nox -s engine-docs, .ci/run); here, in seconds: its sources pass
`check`, each reference's example passes its hidden checks (a setting, command, manifest key or
public name without its row fails them), the tutorial's concepts stay fifteen at most, and what it
cites of phase 25's book is in phase 25's book."""

import ast
import re
import subprocess
import sys
import tomllib

import pytest
from sphinx.util.inventory import InventoryFile

from execbook import config, newbook, source

ENGINE_DOCS = config.REPO / "execbook" / "docs"
SETTINGS = tomllib.loads((ENGINE_DOCS / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["book"]
REFERENCES = ["ref_settings", "ref_settings_wrong", "ref_commands", "ref_manifest", "ref_api", "howto_timeout"]


def engine(*arguments):
    return subprocess.run(
        [sys.executable, "-m", "execbook", *arguments], cwd=ENGINE_DOCS, capture_output=True, text=True, timeout=300
    )


def test_its_sources_pass_the_check():
    done = engine("check")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name", REFERENCES)
def test_each_reference_lists_every_item_of_what_it_documents(name):
    """The hidden checks of the settings, commands, manifest and API pages compare their rows with
    config.schema(), cli.parser(), ENTRY_KEYS and execbook.__all__; `run` runs them as the page does."""
    done = engine("run", name)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_its_examples_need_no_torch():
    for example in sorted((ENGINE_DOCS / "examples").glob("*.py")):
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(ast.parse(example.read_text(encoding="utf-8")))
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
        }
        assert "torch" not in imported, f"{example.name} imports torch: the engine's documentation needs none"


def test_the_tutorial_names_at_most_fifteen_concepts_each_a_glossary_term():
    for language in SETTINGS["languages"]:
        page = (ENGINE_DOCS / "docs" / language / "tutorial" / "index.md").read_text(encoding="utf-8")
        concepts = re.findall(r"^\d+\. .*\{term\}`([^`]+)`", page, flags=re.MULTILINE)
        glossary = source.read(ENGINE_DOCS / "docs" / language / "glossary.md")
        terms = {term for entry in source.glossary_entries(glossary) for _, term in entry}
        named = {re.sub(r".*<(.+)>$", r"\1", concept) for concept in concepts}
        assert 0 < len(concepts) <= 15 and named <= terms, (language, len(concepts), named - terms)


def test_the_copies_of_phase_25_s_inventories_hold_its_labels():
    """howto/other-books cites phase 25's book from copies of its objects.inv (the build reads nothing
    from the network): a label added, renamed or removed there makes them stale."""
    for language in SETTINGS["languages"]:
        inventory = SETTINGS["intersphinx"]["phase25"]["inventory"].format(language=language)
        with open(ENGINE_DOCS / inventory, "rb") as copy:
            labels = set(InventoryFile.load(copy, "", lambda base, uri: uri).get("std:label", {}))
        pages = source.page_sources(config.DOCS / language).values()
        sources = {label for page in pages for _, label in source.read(page).labels}
        assert labels - {"genindex", "modindex", "py-modindex", "search"} == sources, (
            f"{inventory} is stale: after nox -s docs, copy docs/_build/html/{language}/objects.inv there"
        )


def test_new_books_point_at_it_where_it_is_published():
    assert newbook.documentation() == SETTINGS["site-url"]


def test_its_spanish_follows_the_book_s_style_sheet():
    """docs/style-es.md: one Spanish word per concept, on the engine's Spanish pages too."""
    from test_glossary import banned_variants

    found = [
        f"{path.relative_to(ENGINE_DOCS)}:{line}: «{variant}» -> {use}"
        for path in sorted(source.page_sources(ENGINE_DOCS / "docs" / "es").values())
        for line, variant, use in banned_variants(path.read_text(encoding="utf-8"), "es")
    ]
    assert not found, "forms the style sheet rejects (docs/style-es.md):\n" + "\n".join(found)


def test_its_pages_link_to_their_sources_in_its_folder_of_the_repository():
    """A book in a folder of its repository (this one, execbook/docs/) links each page to its file there."""
    if not (config.REPO / ".git").exists():
        pytest.skip("not a git checkout (a scratch copy of the repository): git names the book's folder")
    source = "from execbook.sphinxext import links; print(links.source_url('en', 'index.md'))"
    done = subprocess.run([sys.executable, "-c", source], cwd=ENGINE_DOCS, capture_output=True, text=True)
    assert done.stdout.strip() == f"{SETTINGS['repository']}/blob/main/execbook/docs/docs/en/index.md", done.stderr


def test_its_colab_notebooks_install_what_its_pages_import():
    """A book without a package of its own: the install cell installs its dependencies, which pip keeps where met."""
    source = "from execbook.sphinxext import links; print(links.install_cell()); print(links.pip_arguments())"
    done = subprocess.run([sys.executable, "-c", source], cwd=ENGINE_DOCS, capture_output=True, text=True)
    *cell, arguments = done.stdout.strip().split("\n")
    wanted = tomllib.loads((ENGINE_DOCS / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert f"wanted = {wanted!r}" in cell and arguments == " ".join(f'"{w}"' for w in wanted), done.stderr
    ast.parse("\n".join(cell))
