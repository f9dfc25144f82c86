"""The built site: language switcher, hreflang, es/en mirror, and a real browser."""

import functools
import http.server
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urljoin

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
SITE = DOCS / "_build" / "html"
BREAK_PAGE = "breaks/25-inplace-autograd.html"
CHROMIUM = "/usr/bin/chromium"

sys.path.insert(0, str(DOCS / "_ext"))
from mirror import labels, mirror_problems, page_sources  # noqa: E402


@pytest.fixture(scope="session")
def site():
    """Build the book (incremental: cheap when nothing changed) and return the site folder."""
    done = subprocess.run([sys.executable, str(DOCS / "build.py")], cwd=REPO)
    assert done.returncode == 0, "the docs build failed"
    return SITE


def html_pages(site, language):
    """The pages of one language (not the theme's own files under _static/ and such)."""
    root = site / language
    return sorted(p for p in root.rglob("*.html")
                  if not any(part.startswith("_") for part in p.relative_to(root).parts))


def test_source_trees_mirror_each_other():
    assert mirror_problems(DOCS, ["es", "en"]) == []
    assert set(page_sources(DOCS / "es")) == set(page_sources(DOCS / "en"))
    assert "phase-25-inplace-break" in labels(DOCS / "es")


def test_mirror_check_reports_a_missing_page_and_label(tmp_path):
    for lang in ("es", "en"):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "index.md").write_text("(home)=\n# x\n")
    (tmp_path / "es" / "extra.md").write_text("(only-es)=\n# y\n")
    problems = mirror_problems(tmp_path, ["es", "en"])
    assert any("page es/extra has no counterpart en/extra" in p for p in problems)
    assert any("'only-es'" in p for p in problems)


def test_published_tree_has_both_languages_and_no_executed_notebooks(site):
    assert (site / "index.html").is_file()
    for lang in ("es", "en"):
        assert (site / lang / BREAK_PAGE).is_file()
    assert not list(site.rglob("jupyter_execute"))
    assert not list(site.rglob("*.ipynb"))
    es = {p.relative_to(site / "es") for p in html_pages(site, "es")}
    en = {p.relative_to(site / "en") for p in html_pages(site, "en")}
    assert es == en


SWITCH = re.compile(r'id="book-language-switch" href="([^"]+)" hreflang="(\w+)"')
ALTERNATE = re.compile(r'<link rel="alternate" hreflang="(\w+)" href="([^"]+)"')


@pytest.mark.parametrize("language,other", [("es", "en"), ("en", "es")])
def test_every_page_switches_to_its_counterpart(site, language, other):
    pages = html_pages(site, language)
    assert len(pages) >= 3
    for page in pages:
        text = page.read_text(encoding="utf-8")
        switch = SWITCH.findall(text)
        assert len(switch) == 1, f"{page} has {len(switch)} language switchers"
        href, lang = switch[0]
        assert lang == other
        target = (page.parent / href).resolve()
        assert target == (site / other / page.relative_to(site / language)).resolve(), page
        assert target.is_file(), f"{page} switches to missing {target}"
        alternates = dict(ALTERNATE.findall(text))
        assert set(alternates) == {"es", "en"}, page
        for href in alternates.values():
            assert (page.parent / href).resolve().is_file(), f"{page}: hreflang target {href} missing"


def test_labels_are_identical_in_objects_inv(site):
    from sphinx.util.inventory import InventoryFile

    def std_labels(lang):
        with open(site / lang / "objects.inv", "rb") as f:
            inventory = InventoryFile.load(f, "", urljoin)
        return set(inventory["std:label"])

    es, en = std_labels("es"), std_labels("en")
    assert "phase-25-inplace-break" in es
    assert es == en


def test_executed_pages_carry_the_run_stamp(site):
    import torch

    for lang in ("es", "en"):
        text = (site / lang / BREAK_PAGE).read_text(encoding="utf-8")
        assert "book-stamp" in text and f"torch {torch.__version__}" in text


# ---------------------------------------------------------------- real browser

class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run must `apt-get install -y chromium`")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield browser
        browser.close()


def test_browser_switch_language_tabs_and_hints(server, browser, site):
    page = browser.new_page()
    problems = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status}: {r.url}"))

    page.goto(f"{server}/es/{BREAK_PAGE}")
    assert page.locator("html").get_attribute("lang") == "es"
    page.click("#book-language-switch")
    page.wait_for_url(f"{server}/en/{BREAK_PAGE}")
    assert page.locator("html").get_attribute("lang") == "en"

    tabs = page.locator(".sphinx-tabs [role=tab]")
    assert tabs.count() >= 2
    second = tabs.nth(1)
    second.click()
    assert second.get_attribute("aria-selected") == "true"
    panel = page.locator(f"#{second.get_attribute('aria-controls')}")
    assert panel.is_visible()
    assert not page.locator(f"#{tabs.nth(0).get_attribute('aria-controls')}").is_visible()
    second.click()  # clicking the active tab must not close it
    assert panel.is_visible()

    hints = page.locator("details.sd-dropdown")
    assert hints.count() >= 3
    for i in range(hints.count()):
        hint = hints.nth(i)
        hint.locator("summary").click()
        assert hint.get_attribute("open") is not None
        assert hint.locator(".sd-summary-content").is_visible()

    shots = DOCS / "_build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "en-break-page.png"), full_page=True)
    page.goto(f"{server}/index.html")
    page.click("#choose-es")
    page.wait_for_url(f"{server}/es/index.html")
    page.close()
    assert problems == []
