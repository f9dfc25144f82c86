"""Sphinx configuration shared by docs/es and docs/en; each conf.py sets only what differs.

Usage in docs/<lang>/conf.py:

    from conf_shared import configure
    globals().update(configure("es", project="..."))
"""

import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
BUILD = DOCS / "_build"
LANGUAGES = {"es": "Español", "en": "English"}
# Other phases of the course live in their own books; links to them are made here only, with
# the {phase}`8` role (never fetched at build time: no intersphinx downloads).
COURSE_URL = "https://minigpt-course.github.io/{language}/phases/"
# Where the site is published (the folder holding the root page, es/ and en/): the absolute URLs
# of the hreflang alternates and of sitemap.xml start here (docs/_ext/bilingual.py). The Pages
# workflow (.github/workflows/docs.yml) deploys docs/_build/html to this project's GitHub Pages.
SITE_URL = "https://minigpt-course.github.io/phase-25/"
# docs/ as seen from a language's conf.py (docs/<lang>/): the HTML options name their files
# relative to it, so that no absolute path of the build machine reaches the published site
# (Sphinx hashes those options into each language's .buildinfo).
SHARED = ".."

sys.path.insert(0, str(DOCS / "_ext"))

from book.pages import MYST_EXTENSIONS  # noqa: E402 - the pages' parser and Sphinx read alike


def kernel_environment(environ=os.environ):
    """The environment the notebook kernel inherits (set by configure; the benchmark's plain-Python
    floor uses it too): it imports this repository's packages and finds the repository (examples,
    justfile) without depending on the page's directory; experiments are shared through the
    build's store (book.store)."""
    environ["PYTHONPATH"] = os.pathsep.join(
        [str(REPO)] + [p for p in environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    environ["BOOK_REPO_ROOT"] = str(REPO)
    environ["BOOK_STORE"] = str(BUILD / "store")
    # The training runs of the pages and of the reproducer's commands, computed once (minigpt.train)
    environ["MINIGPT_RUN_CACHE"] = environ["BOOK_STORE"]
    environ.setdefault("MPLBACKEND", "Agg")
    # Tiny tensors: a second intra-op thread buys little and, on a loaded 2-core machine, costs a lot.
    environ.setdefault("OMP_NUM_THREADS", "1")
    return environ


def build_versions():
    """The versions the status page shows: this process's environment, which the kernel inherits."""
    found = {"python": platform.python_version()}
    for package in ("torch", "numpy", "matplotlib", "sphinx", "myst-nb", "jupyter-cache", "ipykernel"):
        try:
            found[package.replace("-", "_")] = version(package)
        except PackageNotFoundError:
            found[package.replace("-", "_")] = "not installed"
    return found


def execution_cache(repo=REPO):
    """MyST-NB's execution cache. It keys each page on its cells' text, and every executed page's
    setup cell names the fingerprint of the files the page depends on (docs/_ext/casecells.py):
    a page re-executes exactly when one of them, or the installed torch, changes."""
    return repo / "docs" / "_build" / ".jupyter_cache"


def configure(language, project):
    kernel_environment()
    return dict(
        project=project,
        author={"es": "los autores del curso mini-GPT", "en": "the mini-GPT course authors"}[language],
        copyright="2026",
        language=language,
        book_language=language,
        book_languages=LANGUAGES,
        book_site_url=SITE_URL,
        extensions=["myst_nb", "sphinx_tabs.tabs", "sphinx_design", "sphinx_copybutton",
                    "sphinx.ext.extlinks", "bilingual", "freshness", "casecells", "progress", "downloads",
                    "reproducible"],
        extlinks={"phase": (COURSE_URL.format(language=language) + "%s/", {"es": "fase %s", "en": "phase %s"}[language])},
        templates_path=[f"{SHARED}/_templates"],
        exclude_patterns=["_build", "**.ipynb_checkpoints"],
        nitpicky=True,
        # MyST
        myst_enable_extensions=list(MYST_EXTENSIONS),
        myst_substitutions=build_versions(),  # {{ torch }}, {{ sphinx }}, ... on the status page
        myst_heading_anchors=3,
        # MyST-NB execution: every page runs; an unexpected error fails the build
        # (progress: prints each page it executes; kernels run over IPC sockets, not unencrypted TCP)
        nb_execution_mode="cache",
        nb_execution_cache_path=str(execution_cache()),
        nb_execution_raise_on_error=True,
        nb_execution_show_tb=True,
        nb_execution_timeout=600,
        nb_merge_streams=True,
        nb_code_prompt_show={"es": "Mostrar el contenido oculto de la celda", "en": "Show code cell {type}"}[language],
        nb_code_prompt_hide={"es": "Ocultar el contenido de la celda", "en": "Hide code cell {type}"}[language],
        book_execute_folder=str(BUILD / "jupyter_execute" / language),
        # freshness: what each build executed; pages read on every build (docs/_ext/freshness.py)
        book_execution_report_dir=str(BUILD / "execution"),
        book_always_read=["status", "glossary"],
        # the order in which pages are read (docs/build.py): the longest executed page first, in a
        # process of its own on a first build; the page that reads what the others computed last
        book_read_alone=["breaks/25-inplace-autograd"],
        book_read_last=["compatibility"],
        # a different torch re-reads every page (Sphinx re-reads on a changed config value)
        book_torch=version("torch"),
        today_fmt="%Y-%m-%d",
        # Sphinx strings its Spanish catalog lacks (docs/locale/es/LC_MESSAGES/sphinx.po)
        locale_dirs=[str(DOCS / "locale")],
        # sphinx-tabs
        sphinx_tabs_disable_tab_closing=True,
        sphinx_tabs_valid_builders=["linkcheck"],
        # HTML
        html_theme="sphinx_book_theme",
        html_title=project,
        html_static_path=[f"{SHARED}/_static"],
        html_css_files=["book.css", "outputs.css", "print.css"],
        html_js_files=[("book.js", {"defer": "defer"})],
        html_favicon=f"{SHARED}/_static/favicon.svg",
        # pydata-sphinx-theme's script rejects an empty mode (a console error on every page)
        html_context={"default_mode": "auto"},
        html_theme_options={
            "article_header_end": ["language-switcher.html", "download-menu.html", "article-header-buttons.html"],
            "use_download_button": False,
            "use_fullscreen_button": False,
            "show_toc_level": 2,
            "search_bar_text": {"es": "Buscar en el libro…", "en": "Search this book…"}[language],
        },
        html_last_updated_fmt="%Y-%m-%d",
        html_copy_source=False,
        html_show_sourcelink=False,
    )
