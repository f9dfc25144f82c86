"""A second book, from the engine's wheel alone: execbook/ built as a wheel, installed in a fresh
virtual environment (its dependencies at this environment's versions, from pip's cache) where torch
is absent, then `python -m execbook new-book DIR --languages fr,en` and, in DIR, `python -m execbook
build`: each language's site in DIR/docs/_build/html/<language>/, with the page's executed example,
its expected error, glued number and glossary term, the switcher, the downloads, and the root's
chooser and sitemap."""

import json
import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import distributions
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
LANGUAGES = ("fr", "en")
DISTRIBUTION = Path(__file__).resolve().parents[1]  # execbook/, beside its tests


def run(program, *arguments, cwd=None, env=None, timeout=900):
    done = subprocess.run(
        [program, *arguments],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{program} {arguments}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def new_book(tmp_path_factory):
    """(the book's folder, the venv's environment, the build's output)."""
    work = tmp_path_factory.mktemp("new-book")
    source = work / "source" / "execbook"  # a copy: building leaves no build/ in the checkout
    shutil.copytree(DISTRIBUTION, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", work, source)
    wheel = next(work.glob("execbook-*.whl"))
    # the versions this environment has, so that pip takes them from its cache; torch is no constraint
    pins = sorted(f"{d.metadata['Name']}=={d.version}" for d in distributions() if d.metadata["Name"] != "torch")
    (work / "pins.txt").write_text("\n".join(pins) + "\n", encoding="utf-8")
    venv = work / "venv"
    run(sys.executable, "-m", "venv", venv)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "BOOK_"))}
    env["PATH"] = os.pathsep.join([str(venv / "bin"), env["PATH"]])
    run("python", "-m", "pip", "install", "--quiet", "-c", work / "pins.txt", wheel, env=env)
    book = work / "book"
    written = run("python", "-m", "execbook", "new-book", book, "--languages", ",".join(LANGUAGES), cwd=work, env=env)
    assert "execbook: wrote a book in" in written.stdout
    built = run("python", "-m", "execbook", "build", cwd=book, env=env)
    return book, env, built.stdout + built.stderr


def test_the_engine_s_environment_has_no_torch(new_book):
    book, env, _ = new_book
    found = run(
        "python", "-c", "import importlib.util, json; print(json.dumps(importlib.util.find_spec('torch')))", env=env
    )
    assert json.loads(found.stdout) is None
    run("python", "-c", "import execbook", cwd=book.parent, env=env)  # outside a book, too
    listed = run("python", "-m", "pip", "list", "--format=json", env=env)
    assert not {p["name"].lower() for p in json.loads(listed.stdout)} & {"torch", "minigpt-phase25", "inplace-doctor"}


def test_each_language_of_the_new_book_builds_into_its_folder(new_book):
    book, _, output = new_book
    site = book / "docs" / "_build" / "html"
    for language in LANGUAGES:
        page = (site / language / "first-page.html").read_text(encoding="utf-8")
        assert re.search(r"The list holds <span[^>]*>\W*3\W*</span>", page), "the glued number is in the prose"
        assert "IndexError" in page and "list index out of range" in page, "the expected error is shown"
        assert 'href="glossary.html#term-' in page, "the glossary term links to its entry"
        other = "en" if language == "fr" else "fr"
        assert f'hreflang="{other}" lang="{other}"' in page, "the switcher leads to the other language"
        assert (site / language / "_downloads" / "first-page.ipynb").is_file()
        assert f'<html lang="{language}"' in page
    assert all(f'hreflang="{lang}"' in (site / "index.html").read_text(encoding="utf-8") for lang in LANGUAGES)
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert all(f"/{lang}/first-page.html" in sitemap for lang in LANGUAGES)
    # the engine has no words in French: English ones, and one warning that says so
    assert output.count("execbook: warning: no engine words in 'fr'") == 1, output[-3000:]
