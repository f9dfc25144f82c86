"""Sphinx configuration shared by every language; each conf.py: `globals().update(configure("es"))`."""

import os
import platform
from importlib.metadata import version
from pathlib import Path
from typing import Any

from .. import config
from ..pages import executed
from ..source import MYST_EXTENSIONS
from .words import words as ui

# The engine's templates and static files (package data), and the book's own in its docs/ folder's
# _templates and _static, which replace them by name; relative to the language's folder, so that no
# absolute path reaches a published file (Sphinx hashes these options into .buildinfo).
ENGINE = Path(__file__).resolve().parent
ENGINE_VERSIONS = ("sphinx", "myst-nb", "jupyter-cache", "ipykernel")  # the engine's own, on every status page


def build_versions() -> dict[str, str]:
    """The versions the status page shows ({{ python }}, {{ myst_nb }}...), [tool.book] `versions` too."""
    packages = dict.fromkeys([*config.FINGERPRINTED, *config.VERSIONS, *ENGINE_VERSIONS])
    return {"python": platform.python_version(), **{p.replace("-", "_"): version(p) for p in packages}}


def configure(language: str) -> dict[str, Any]:
    words = ui(language)
    here = config.DOCS / language

    def paths(*folders: Path) -> list[str]:
        return [os.path.relpath(folder, here) for folder in folders if folder.is_dir()]

    favicon = config.DOCS / "_static" / "favicon.svg"

    def other(url: str, inventory: str) -> tuple[str, str | None]:
        """Another book a page links into ([tool.book.intersphinx]), read from its local inventory if named."""
        url, inventory = url.format(language=language), inventory.format(language=language)
        return url, os.path.relpath(config.REPO / inventory, here) if inventory else None

    books = {name: other(book.url, book.inventory) for name, book in config.INTERSPHINX.items()}
    return dict(
        project=config.TITLES[language],
        author=config.AUTHORS.get(language, ""),
        copyright="2026",
        language=language,
        extensions=[
            "myst_nb",
            "sphinx_tabs.tabs",
            "sphinx_design",
            "sphinx_copybutton",
            "sphinx.ext.extlinks",
            "execbook.sphinxext",
            *(["sphinx.ext.intersphinx"] if books else []),
        ],
        intersphinx_mapping=books,
        extlinks={"phase": (config.COURSE_URL.format(language=language) + "%s/", config.COURSE_LINK.get(language))}
        if config.COURSE_URL
        else {},
        templates_path=paths(config.DOCS / "_templates", ENGINE / "templates"),
        exclude_patterns=[config.BUILD.name, "**.ipynb_checkpoints"],
        nitpicky=True,
        myst_enable_extensions=list(MYST_EXTENSIONS),
        myst_substitutions=build_versions(),  # {{ torch }}, {{ sphinx }}, ... on the status page
        myst_heading_anchors=3,
        nb_execution_mode="cache",  # where execbook.build put every page's outputs
        # each executed page is read by execbook.pages.read (keyed on its path: the others stay plain MyST)
        nb_custom_formats={
            f"/{page}.md": ("execbook.pages.read", {"path": f"{config.DOCS.name}/{language}/{page}.md"}, False)
            for page in executed(language)
        },
        nb_execution_cache_path=str(config.EXECUTION_CACHE),
        nb_execution_raise_on_error=True,
        nb_execution_show_tb=True,
        nb_execution_timeout=config.CELL_TIMEOUT,
        nb_merge_streams=True,
        nb_code_prompt_show=words["show"],
        nb_code_prompt_hide=words["hide"],
        # another release of a fingerprinted distribution re-reads every page (a changed config value)
        book_fingerprinted=[f"{d} {version(d)}" for d in config.FINGERPRINTED],
        today_fmt="%Y-%m-%d",
        # what Sphinx's catalogs lack: absolute, as Sphinx looks for sphinx.js from its working directory
        locale_dirs=[str(config.DOCS / "locale")],
        sphinx_tabs_disable_tab_closing=True,
        sphinx_tabs_valid_builders=["linkcheck"],
        html_theme="sphinx_book_theme",
        html_title=config.TITLES[language],
        html_static_path=paths(ENGINE / "static", config.DOCS / "_static"),
        html_css_files=["book.css", "outputs.css", "print.css"],
        html_js_files=[("book.js", {"defer": "defer"})],
        html_favicon=os.path.relpath(favicon, here) if favicon.is_file() else None,
        # pydata-sphinx-theme's script rejects an empty mode (a console error on every page)
        html_context={"default_mode": "auto"},
        html_theme_options={
            "article_header_end": ["language-switcher.html", "download-menu.html", "article-header-buttons.html"],
            "use_download_button": False,
            "use_fullscreen_button": False,
            "show_toc_level": 2,
            "search_bar_text": words["search"],
        },
        html_last_updated_fmt="%Y-%m-%d",
        html_copy_source=False,
        html_show_sourcelink=False,
    )
