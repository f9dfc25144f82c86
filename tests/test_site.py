"""The built site: language switcher, hreflang and sitemap, es/en mirror, no paths of the build
machine, and a real browser (Debian's Chromium): the header buttons on a phone, a tablet and a
desktop, no sideways scroll on a phone, the switcher keeping the reader's place, the root page
remembering the reader's language, print, and axe-core in light and dark mode."""

import json
import re
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import urljoin

import pytest
from conftest import needs, serve

from execbook.config import SITE_URL
from execbook.sphinxext.bilingual import glossary_anchors
from execbook.sphinxext.words import words as ui

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
BREAK_PAGE = "breaks/25-inplace-autograd.html"
AXE_VERSION = "4.14.1"  # pinned: a new release brings new rules, to be looked at on purpose


def html_pages(site, language):
    """The pages of one language (not the theme's own files under _static/ and such)."""
    root = site / language
    return sorted(
        p for p in root.rglob("*.html") if not any(part.startswith("_") for part in p.relative_to(root).parts)
    )


def every_page(site):
    """Both languages' pages and the root's language chooser, relative to the site."""
    pages = [site / "index.html"] + html_pages(site, "es") + html_pages(site, "en")
    return [p.relative_to(site).as_posix() for p in pages]


def browse(server, path):
    """A page of every_page in the browser. The root page sends the reader on to a language unless
    asked to show its choice (?choose)."""
    return f"{server}/{path}" + ("?choose" if path == "index.html" else "")


def test_glossary_term_anchors_are_the_same_in_both_languages(site):
    anchors = {
        lang: set(re.findall(r'id="(term-[^"]+)"', (site / lang / "glossary.html").read_text("utf-8")))
        for lang in ("es", "en")
    }
    expected = set().union(*glossary_anchors(DOCS, ["es", "en"]))  # every term of both glossaries
    assert anchors["es"] == anchors["en"] and expected <= anchors["en"]
    switch = re.search(r'data-anchors="([^"]*)"', (site / "es" / "glossary.html").read_text("utf-8"))
    assert switch and anchors["es"] <= set(switch.group(1).split())  # the language switch keeps them


def test_figures_are_drawn_for_a_phone_width(site):
    """Every figure is drawn narrow (execbook.gluing.FIGURE_WIDTH inches, at FIGURE_DPI): a phone 390 px
    wide shows it at half its pixel width or more, so its 8-point text stays about 9 px high."""
    import struct

    from execbook.gluing import FIGURE_DPI, FIGURE_WIDTH

    widest = (FIGURE_WIDTH + 0.5) * FIGURE_DPI
    images = sorted(site.glob("*/_images/*.png"))
    assert len(images) >= 4 * 2, images  # the break, compatibility and theory figures, both languages
    wide = {}
    for image in images:
        width, height = struct.unpack(">II", image.read_bytes()[16:24])
        if width > widest:
            wide[str(image.relative_to(site))] = (width, height)
    assert wide == {}, (
        f"figures wider than {widest:.0f} px: draw them with FIGURE_WIDTH (execbook/src/execbook/gluing.py)"
    )


def test_published_tree_has_both_languages_and_only_the_downloads_as_notebooks(site):
    assert (site / "index.html").is_file()
    for lang in ("es", "en"):
        assert (site / lang / BREAK_PAGE).is_file()
    assert not list(site.rglob("jupyter_execute"))
    notebooks = [p.relative_to(site).parts for p in site.rglob("*.ipynb")]
    assert notebooks and all(parts[1] == "_downloads" for parts in notebooks), notebooks  # tests/test_downloads.py
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
            assert href.startswith(SITE_URL), f"{page}: hreflang target {href} is not on the site"
            assert (site / href[len(SITE_URL) :]).is_file(), f"{page}: hreflang target {href} missing"


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


# Paths of the machine that built the book (a traceback, a warning, a repr) mean nothing to a reader.
MACHINE_PATHS = re.compile(
    "|".join(
        re.escape(p)
        for p in ("/tmp/", "/work/", "/root/", "/home/", "/__w/", "site-packages", "dist-packages", str(REPO))
    )
)


@pytest.mark.parametrize("language", ["es", "en"])
def test_status_page_says_when_each_page_ran_in_its_language(site, language):
    """One row per executed page, headers in the page's language, and no run time: two builds of
    one commit publish the same site (tests/test_reproducible.py)."""
    text = (site / language / "status.html").read_text(encoding="utf-8")
    table = text[text.rindex("<table") : text.rindex("</table>")]  # the last one: the versions come first
    words = ui(language)
    assert re.findall(r"<th class=\"head\"><p>(.*?)</p></th>", table) == [
        words[k] for k in ("status_page", "status_ran", "status_result")
    ]
    executed = [p for p in html_pages(site, language) if 'class="book-stamp"' in p.read_text(encoding="utf-8")]
    rows = re.findall(r"<tr class=\"row-(?:odd|even)\">(.*?)</tr>", table[table.index("<tbody") :], re.S)
    assert len(rows) == len(executed) >= 5
    assert all(
        re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}</p>", row) and words["status_succeeded"] in row for row in rows
    )
    assert "Run Time" not in text and "Modified" not in text


def test_pages_show_no_path_of_the_build_machine(site):
    found = []
    for page in every_page(site):
        text = (site / page).read_text(encoding="utf-8")
        found += [f"{page}: ...{text[max(m.start() - 60, 0) : m.end() + 40]}..." for m in MACHINE_PATHS.finditer(text)]
    assert found == []


# ---------------------------------------------------------------- what a reader sees first

# The break page is a lesson first: it fits in this much visible text (collapsed dropdowns and
# cells left out), the fix starts on its first screen, and no visible output runs on for pages.
# No page of breaks/ or theory/ is longer than PAGE_VISIBLE_CHARACTERS (issue 41 item 2).
BREAK_PAGE_VISIBLE_CHARACTERS = 16_000
FIX_STARTS_BEFORE = 0.15  # of the break page's visible text
PAGE_VISIBLE_CHARACTERS = 30_000
OUTPUT_LINES = 40


def visible_text(html):
    """The article's text a reader sees without opening anything (no <details>, scripts, styles)."""
    import html as entities

    found = re.search(r"(?s)<article[^>]*>(.*)</article>", html)
    article = re.sub(r"(?s)<details\b.*?</details>", "", found.group(1) if found else html)
    article = re.sub(r"(?s)<(script|style)\b.*?</\1>", "", article)
    return article, entities.unescape(re.sub(r"<[^>]+>", "", article))


@pytest.mark.parametrize("language", ["es", "en"])
def test_break_page_puts_the_fix_first_and_stays_short(site, language):
    article, text = visible_text((site / language / BREAK_PAGE).read_text(encoding="utf-8"))
    assert len(text) <= BREAK_PAGE_VISIBLE_CHARACTERS
    before_fix = visible_text(article[: article.index('id="phase-25-fix"')])[1]
    assert len(before_fix) / len(text) <= FIX_STARTS_BEFORE
    assert re.search(r'class="(tip admonition|admonition tip)"', article[: article.index('id="phase-25-symptom"')]), (
        "the short box under the title"
    )


@pytest.mark.parametrize("language", ["es", "en"])
def test_no_lesson_page_is_longer_than_the_limit(site, language):
    long = {}
    for page in html_pages(site, language):
        folder = page.relative_to(site / language).parts[0]
        if folder in ("breaks", "theory"):
            size = len(visible_text(page.read_text(encoding="utf-8"))[1])
            if size > PAGE_VISIBLE_CHARACTERS:
                long[page.relative_to(site).as_posix()] = size
    assert long == {}, f"visible characters over {PAGE_VISIBLE_CHARACTERS:,}: move a part to a page of its own"


def test_no_visible_output_is_longer_than_a_screenful(site):
    long = []
    for page in every_page(site):
        article, _ = visible_text((site / page).read_text(encoding="utf-8"))
        # an output block ends at its </pre>, never past the next cell's input (an HTML output
        # has no <pre>)
        for block in re.findall(r'(?s)<div class="cell_output(?:(?!<div class="cell_input).)*?</pre>', article):
            lines = visible_text(block)[1].count("\n")
            if lines > OUTPUT_LINES:
                long.append(f"{page}: {lines} lines")
    assert long == []


def test_code_and_outputs_on_spanish_pages_say_they_are_english(site):
    """Code and outputs stay English (one execution for both languages): on a Spanish page each
    block carries lang="en", so that a screen reader does not read it with Spanish sounds."""
    blocks = unmarked = 0
    for path in html_pages(site, "es"):
        for tag in re.findall(r'<div [^>]*class="(?:highlight-|cell_output)[^>]*>', path.read_text(encoding="utf-8")):
            blocks += 1
            unmarked += 'lang="en"' not in tag
    assert blocks > 50 and unmarked == 0, f'{unmarked} of {blocks} code or output blocks without lang="en"'


def test_every_image_opens_full_size(site):
    """A figure too small to read on a phone opens on a tap: each image links to itself."""
    images = 0
    for page in every_page(site):
        html = (site / page).read_text(encoding="utf-8")
        for match in re.finditer(r'<img\b[^>]*\bsrc="([^"]*_images/[^"]+)"', html):
            images += 1
            link = html[: match.start()].rsplit("<a ", 1)[-1]
            assert "</a>" not in link and f'href="{match.group(1)}"' in link, f"{page}: {match.group(1)} opens nowhere"
    assert images >= 4, f"only {images} images: is the site complete?"


@pytest.mark.parametrize("language", ["es", "en"])
def test_pages_link_no_script_they_do_not_use(site, language):
    """Font Awesome's script is linked nowhere and not published; the search scripts only on the
    search page (execbook/src/execbook/sphinxext/templates)."""
    assert not list((site / language / "_static" / "scripts").glob("fontawesome.js*"))
    for page in html_pages(site, language):
        scripts = set(re.findall(r'<script\b[^>]*\bsrc="(?:\.\./)*([^"?]+)', page.read_text(encoding="utf-8")))
        unused = {"_static/scripts/fontawesome.js"} | (set() if page.name == "search.html" else SEARCH_SCRIPTS)
        assert not scripts & unused, f"{page}: {scripts & unused}"


SEARCH_SCRIPTS = {"_static/searchtools.js", "_static/language_data.js", "searchindex.js"}


def test_every_image_has_alt_text_in_its_page_language(site):
    alts = {}
    for language in ("es", "en"):
        for page in html_pages(site, language):
            article, _ = visible_text(page.read_text(encoding="utf-8"))
            found = re.findall(r'<img[^>]*alt="([^"]*)"', article)
            alts[language, page.relative_to(site / language).as_posix()] = found
            assert all(a.strip() and not re.search(r"\.(png|svg|jpg)$|^_images|/", a) for a in found), (page, found)
    for (language, page), found in alts.items():
        if language == "es":
            other = alts["en", page]
            assert len(found) == len(other) and all(a != b for a, b in zip(found, other, strict=True)), (
                f"{page}: Spanish alt text must be Spanish, not the English one"
            )


# A number with a decimal point in Spanish prose ("0.66 %") is English typography; releases such
# as 2.13.0 (two dots), "PyTorch ≥ 1.5" (a quoted release), a requirement such as
# "torch>=2.10,<2.16", and code are not prose.
DECIMAL_POINT = re.compile(r"(?<![\w.=<>])(?<!torch )(?<!torch ≥ )\d+\.\d+(?![\w.])", re.IGNORECASE)


def test_spanish_prose_writes_the_decimal_comma(site):
    found = []
    for page in html_pages(site, "es"):
        article, _ = visible_text(page.read_text(encoding="utf-8"))
        prose = re.sub(r"(?s)<(pre|code|table)\b.*?</\1>|<div class=\"cell_output.*?</pre>", "", article)
        prose = re.sub(r'(?s)<div class="book-stamp">.*?</div>', "", prose)
        _, text = visible_text(prose)
        found += [
            f"{page.name}: ...{text[max(m.start() - 40, 0) : m.end() + 20]}..." for m in DECIMAL_POINT.finditer(text)
        ]
    assert found == []


def test_spanish_pages_follow_the_style_sheet_in_tables_outputs_and_glued_text(site):
    """The forms docs/style-es.md rejects, in everything a Spanish page shows: its prose, the tables
    and phrases the build glues, the alt texts of its figures, folded text and what its cells print
    (tests/test_glossary.py reads the sources; the words drawn in figures are held there)."""
    import html as entities

    from test_glossary import BANNED, CODE, MENTION, marked

    found = []
    for page in html_pages(site, "es"):
        text = page.read_text(encoding="utf-8")
        body = re.search(r"(?s)<article[^>]*>(.*)</article>", text)
        article = body.group(1) if body else text
        article = re.sub(r"(?s)<(script|style)\b.*?</\1>", "", article)
        article = re.sub(r'alt="([^"]*)"', r">\1<", article)
        # the code a learner types (Python, English identifiers) is not read; what it prints is
        article = re.sub(r'(?s)<div class="highlight-(?:ipython3|python) notranslate"[^>]*>.*?</pre>', "", article)
        # what a cell prints; the diagnoser's report names PyTorch's ATen operators "aten ops" (its words)
        printed = lambda m: marked(re.sub(r"\baten ops?\b", CODE, entities.unescape(re.sub(r"<[^>]+>", "", m[0]))))  # noqa: E731
        article = re.sub(r"(?s)<pre\b.*?</pre>", printed, article)
        article = re.sub(r"(?s)<code\b.*?</code>", CODE, article)
        words = MENTION.sub(" ", entities.unescape(re.sub(r"<[^>]+>", " ", article)))
        for pattern, use in BANNED["es"]:
            found += [f"{page.relative_to(site)}: «{' '.join(m[0].split())}» -> {use}" for m in pattern.finditer(words)]
    assert found == [], "forms the style sheet rejects (docs/style-es.md):\n" + "\n".join(found)


# ---------------------------------------------------------------- real browser


@pytest.fixture(scope="module")
def server(site):
    with serve(site) as address:
        yield address


def test_browser_switch_language_tabs_and_hints(server, browser, site):
    page = browser.new_page()
    problems = watch(page)  # the language switch may cut the Spanish page's favicon short: no problem

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

    page.goto(browse(server, "index.html"))
    page.click("#choose-es")
    page.wait_for_url(f"{server}/es/index.html")
    page.close()
    assert problems == []


def watch(page):
    """The problems a page reports while a test drives it (console errors, failed requests)."""
    problems = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    # (a request the next page.goto cuts short, such as the favicon's, is no problem)
    page.on(
        "requestfailed",
        lambda r: r.failure != "net::ERR_ABORTED" and problems.append(f"request failed: {r.url} ({r.failure})"),
    )
    page.on("response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status}: {r.url}"))
    return problems


@pytest.mark.parametrize("width", [390, 800])
def test_header_buttons_open_the_sidebars_on_a_phone_and_a_tablet(server, browser, width):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": width, "height": 800})
    problems = watch(page)
    page.goto(f"{server}/en/{BREAK_PAGE}")
    for side, content in (("primary", "nav.bd-docs-nav"), ("secondary", "nav.page-toc")):
        dialog = page.locator(f"#pst-{side}-sidebar-modal")
        page.locator(f".bd-header-article .{side}-toggle").click()
        expect(dialog).to_be_visible()
        expect(dialog.locator(content)).to_be_visible()
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
    # a section chosen in "On this page" is shown, not left behind the dialog
    page.locator(".bd-header-article .secondary-toggle").click()
    page.locator("#pst-secondary-sidebar-modal a[href='#phase-25-fix']").click()
    expect(page.locator("#pst-secondary-sidebar-modal")).to_be_hidden()
    page.wait_for_url("**#phase-25-fix")
    expect(page.locator("#phase-25-fix h2")).to_be_in_viewport()
    page.close()
    assert problems == []


def test_menu_button_collapses_the_sidebar_on_a_desktop(server, browser):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{server}/en/{BREAK_PAGE}")
    sidebar, menu = page.locator("#pst-primary-sidebar"), page.locator(".bd-header-article .primary-toggle")
    expect(sidebar).to_be_visible()
    menu.click()
    expect(sidebar).to_be_hidden()
    menu.click()
    expect(sidebar).to_be_visible()
    expect(page.locator("#pst-secondary-sidebar nav.page-toc")).to_be_visible()  # no button needed
    page.close()


def test_no_page_scrolls_sideways_on_a_phone(server, browser, site):
    """Only tables and code blocks may be wider than a phone, inside their own scrolling box."""
    page = browser.new_page(viewport={"width": 390, "height": 800})
    problems = watch(page)
    wide = {}
    for path in every_page(site):
        page.goto(browse(server, path))
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 390:
            wide[path] = width
    page.close()
    assert wide == {}
    assert problems == []


# Every output block with its details opened: those whose text runs past the box's right edge
# (what the reader cannot see without scrolling it), with the start of their widest line.
OVERFLOWING_OUTPUTS = """() => {
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  return [...document.querySelectorAll("div.output pre")]
    .filter((pre) => pre.checkVisibility() && pre.scrollWidth > pre.clientWidth + 1)
    .map((pre) => pre.innerText.split("\\n").reduce((a, b) => (b.length > a.length ? b : a), "").slice(0, 60));
}"""


# Every code block (a cell's code or a literalinclude) that runs past its box, details opened.
OVERFLOWING_CODE = """() => {
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  return [...document.querySelectorAll("div.highlight pre")]
    .filter((pre) => !pre.closest("div.output") && pre.checkVisibility() && pre.scrollWidth > pre.clientWidth + 1)
    .map((pre) => pre.innerText.split("\\n").reduce((a, b) => (b.length > a.length ? b : a), "").slice(0, 60));
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_no_output_runs_past_its_box(server, browser, site, width):
    """An output's verdict is often at the end of its line: every output wraps to its box, on a
    desktop and on a phone (execbook/src/execbook/sphinxext/static/outputs.css). Code (80 columns) fits its box on a
    desktop with both sidebars shown; on a phone it scrolls sideways."""
    page = browser.new_page(viewport={"width": width, "height": 800})
    found, code, outputs = {}, {}, 0
    for path in every_page(site):
        page.goto(browse(server, path))
        outputs += page.locator("div.output pre").count()
        if overflowing := page.evaluate(OVERFLOWING_OUTPUTS):
            found[path] = overflowing
        if width >= 1280 and (overflowing := page.evaluate(OVERFLOWING_CODE)):
            code[path] = overflowing
    page.close()
    assert outputs > 30, f"only {outputs} output blocks found: is the site complete?"
    assert found == {}, f"outputs wider than their box at {width} px (page: the start of the widest line): {found}"
    assert code == {}, f"code wider than its box at {width} px (page: its longest line): {code}"


SEARCH_SUMMARY = {"es": r"^Búsqueda terminada: \d+ páginas coinciden", "en": r"^Search finished, found \d+ pages"}


@pytest.mark.parametrize("language", ["es", "en"])
def test_search_says_how_many_pages_it_found_in_the_page_language(server, browser, language):
    """The search page ends with a summary in its language (Sphinx's Spanish catalog leaves it
    empty: docs/locale/es/LC_MESSAGES/sphinx.js, which Sphinx publishes instead, has it)."""
    page = browser.new_page()
    page.goto(f"{server}/{language}/search.html?q=version")
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:  # the summary comes once every result is shown
        page.wait_for_function(
            "() => (document.querySelector('#search-results p.search-summary') || {}).innerText", timeout=30_000
        )
        text = page.locator("#search-results p.search-summary").inner_text()
    except PlaywrightTimeout:
        text = ""
    page.close()
    assert re.search(SEARCH_SUMMARY[language], text), (
        f"the search summary reads {text!r}: if it is empty, the language's JavaScript catalog "
        "(_static/translations.js) lacks the string; add it to docs/locale/<language>/LC_MESSAGES/sphinx.js"
    )


PAGE_WEIGHT_LIMIT = 1_200_000  # bytes the break page loads, uncompressed (a reader on a phone)
LOADED_BYTES = """() => [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")]
  .reduce((total, entry) => total + entry.decodedBodySize, 0)"""


@pytest.mark.parametrize("language", ["es", "en"])
def test_break_page_is_light(server, browser, language):
    """What the break page loads (HTML, styles, scripts, fonts, figures) stays under the limit:
    execbook.sphinxext drops the scripts the theme loads that the pages do not use."""
    page = browser.new_page(viewport={"width": 390, "height": 800})
    page.goto(browse(server, f"{language}/{BREAK_PAGE}"))
    page.wait_for_load_state("networkidle")
    weight = page.evaluate(LOADED_BYTES)
    loaded = page.evaluate("() => performance.getEntriesByType('resource').map((e) => [e.decodedBodySize, e.name])")
    page.close()
    heaviest = sorted(loaded, reverse=True)[:5]
    assert weight <= PAGE_WEIGHT_LIMIT, f"the break page loads {weight:,} bytes; the heaviest: {heaviest}"


def test_switcher_carries_the_section_in_view(server, browser):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    problems = watch(page)
    target = f"{server}/es/{BREAK_PAGE}"

    def carries(anchor):
        expect(page.locator("#book-language-switch")).to_have_js_property("href", target + anchor)

    def scroll_to(id):
        page.evaluate("id => document.getElementById(id).scrollIntoView()", id)

    page.goto(f"{server}/en/{BREAK_PAGE}")
    carries("")
    scroll_to("phase-25-mechanism")
    carries("#phase-25-mechanism")
    # a subsection: its own label, the same in both languages
    scroll_to("phase-25-ladder-anomaly")
    carries("#phase-25-ladder-anomaly")
    # the last section cannot scroll to the top: the anchor followed to it is carried
    page.evaluate("location.hash = 'phase-25-crossrefs'")
    carries("#phase-25-crossrefs")  # the page's last section
    scroll_to("phase-25-mechanism")
    carries("#phase-25-mechanism")
    # a click without Playwright's scrolling into view first, which would move the section in view
    page.locator("#book-language-switch").dispatch_event("click")
    page.wait_for_url(f"{target}#phase-25-mechanism")
    top = page.evaluate("document.getElementById('phase-25-mechanism').getBoundingClientRect().top")
    assert 0 <= top < 200, "the Spanish page did not open at the same section"
    page.close()
    assert problems == []


@pytest.fixture(scope="module")
def axe_script():
    """axe-core's script, from the npm registry (once per machine: cached in the temp folder)."""
    folder = Path(tempfile.gettempdir()) / f"book-axe-core-{AXE_VERSION}"
    script = folder / "node_modules" / "axe-core" / "axe.min.js"
    if not script.is_file():
        try:
            done = subprocess.run(
                ["npm", "install", "--prefix", str(folder), "--no-audit", "--no-fund", f"axe-core@{AXE_VERSION}"],
                capture_output=True,
                text=True,
                timeout=300,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            needs(f"npm could not install axe-core: {error}")
        if done.returncode:
            needs(f"npm could not install axe-core@{AXE_VERSION}: {done.stderr[-500:]}")
    return script.read_text(encoding="utf-8")


# axe-core's "serious" and "critical" violations that we cannot fix ourselves (theme markup):
# (mode, page, rule, element). None today; one that appears must be fixed or, if it cannot be, added
# here with the reason.
KNOWN_VIOLATIONS = set()
# axe-core on the page as it is (settle() first: every hidden output and hint opened, nothing
# moving): its serious and critical violations, and the colour rules (category cat.color) among the
# rules it ran. `rules`, if given, are the only ones run.
RUN_AXE = """async (rules) => {
  const options = {resultTypes: ["violations"]};
  if (rules) options.runOnly = {type: "rule", values: rules};
  const result = await axe.run(document, options);
  const ran = [result.passes, result.violations, result.incomplete, result.inapplicable].flat().map((r) => r.id);
  const colour = axe.getRules(["cat.color"]).map((r) => r.ruleId).filter((id) => ran.includes(id));
  return {
    violations: result.violations.filter((v) => ["serious", "critical"].includes(v.impact))
      .flatMap((v) => v.nodes.map((n) => [v.id, n.target.join(" "), n.failureSummary])),
    colour: colour,
  };
}"""
# The elements the page shows, every <details> open (their tag, id and class): the same in dark
# mode as in light but for the colour-mode button's icon, which shows the mode.
SHOWN = """() => {
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  return [...document.body.querySelectorAll("*")].filter((e) => e.checkVisibility() && !e.matches(".theme-switch"))
    .map((e) => `${e.tagName}#${e.id}.${e.getAttribute("class") || ""}`);
}"""
# Dark mode through the theme's own control, as a reader switches (settle() then waits for the
# colours' transitions to end).
TO_DARK = """() => { document.querySelector(".theme-change-button[data-mode=dark]").click(); }"""
# Every <details> opened, then every transition and animation that ends has ended (each awaited
# until none is left; one that was cancelled, say by a style change, counts as ended). Returns
# those still running after that many rounds (none on a page that settles), and the hovered
# elements (none: the pointer is off the page).
SETTLED = """async () => {
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  const running = () => document.getAnimations().filter((a) => a.playState === "running" && a.effect
    && a.effect.getComputedTiming().endTime !== Infinity);
  for (let round = 0; round < 50 && running().length; round++) {
    await Promise.allSettled(running().map((a) => a.finished));
  }
  const name = (e) => (e ? `${e.tagName.toLowerCase()}.${[...e.classList].join(".")}` : "?");
  return {
    running: running().map((a) => `${a.transitionProperty || a.animationName} on ${name(a.effect.target)}`),
    hovered: [...document.querySelectorAll(":hover")].filter((e) => !e.matches("html, body")).map(name),
  };
}"""


def settle(page, where):
    """Wait for the page to be as a reader reads it, so that axe-core measures the colours the page
    keeps, not some moment of a change. The pointer goes off the page (a hovered button has other
    colours), and every transition or animation ends. Without this wait the suite flaked: on
    loading a page the theme sets its colour mode, and its buttons' colours change over 0.15 s
    (Bootstrap's .btn transition); axe-core, started at once, caught the search button's
    placeholder half-way from dark to light (#5b687b on #c4c7ca, 3.33:1), where the settled light
    colours are #48566b on #f3f4f5 (6.76:1), and hovered or focused #222832 on #ffffff (14.81:1)."""
    page.mouse.move(-1, -1)
    state = page.evaluate(SETTLED)
    assert state == {"running": [], "hovered": []}, (
        f"{where}: the page does not settle before axe-core measures it: {state}. An animation that "
        "never stops running cannot be measured: make it end (or stop under prefers-reduced-motion and "
        "emulate that here); a hovered element means the pointer was left on the page"
    )


def axe_pages(site, language):
    """The pages axe-core checks in one run: a language's pages (the root page with Spanish)."""
    return [p for p in every_page(site) if p.startswith(f"{language}/") or (language == "es" and "/" not in p)]


MENU_COLOURS = """() => [...document.querySelectorAll('.theme-change-button')].map((item) => {
  let behind = item, background = 'rgba(0, 0, 0, 0)';
  while (behind && background === 'rgba(0, 0, 0, 0)') {
    background = getComputedStyle(behind).backgroundColor; behind = behind.parentElement;
  }
  return [item.dataset.mode, item.classList.contains('active'), getComputedStyle(item).color, background];
})"""


def contrast(colour_a, colour_b):
    """WCAG contrast ratio of two opaque CSS rgb() colours."""

    def luminance(colour):
        channels = [float(v) / 255 for v in re.findall(r"[\d.]+", colour)[:3]]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(colour_a), luminance(colour_b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_the_colour_mode_menu_reads_at_4_5_to_1_with_its_active_item(server, browser, site, mode):
    from playwright.sync_api import expect

    """The menu is closed while axe-core runs, so it is opened here: every item, the active one
    (the mode in force) included, reaches 4.5:1 against what is behind it."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');")
    page = context.new_page()
    page.goto(browse(server, f"en/{BREAK_PAGE}"))
    page.locator(".theme-switch-button").first.click()
    expect(page.locator(".theme-change-button").first).to_be_visible()
    items = page.evaluate(MENU_COLOURS)
    context.close()
    assert [active_mode for active_mode, active, *_ in items if active] == [mode], items
    low = [(item_mode, fg, bg, round(contrast(fg, bg), 2)) for item_mode, _, fg, bg in items if contrast(fg, bg) < 4.5]
    assert low == [], (
        f"colour-mode menu items under 4.5:1 in {mode} mode (execbook/src/execbook/sphinxext/static/book.css): {low}"
    )


@pytest.mark.parametrize("language", ["es", "en"])
def test_axe_finds_no_serious_violations_in_light_and_dark_mode(server, browser, site, axe_script, language):
    """Each page is loaded once, in light mode: axe-core runs every rule; then the reader switches
    to dark mode, which changes colours only (the page shows the same elements), and axe-core runs
    the colour rules again. (The root page, the language chooser, has no theme: light only.) Each
    time on the settled page (settle)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    # A reader who chose light mode: the theme stores the mode chosen and the theme it resolves to
    # together, and paints the page in the stored theme before its script applies the mode. Storing
    # the mode alone left the theme of the previous page's dark run, so that each page was painted
    # dark, then turned light while axe-core measured it.
    context.add_init_script("localStorage.setItem('mode', 'light'); localStorage.setItem('theme', 'light');")
    page = context.new_page()
    found = {}  # (mode, page, rule, element) -> axe's summary of what is wrong
    dark_pages = 0
    for path in axe_pages(site, language):
        page.goto(browse(server, path))
        page.add_script_tag(content=axe_script)
        settle(page, f"{path}, light mode")
        light = page.evaluate(RUN_AXE, None)
        for rule, element, summary in light["violations"]:
            found["light", path, rule, element] = summary
        if path == "index.html":
            continue
        assert page.locator("html").get_attribute("data-theme") == "light", (
            f"{path} is not in light mode with light mode stored: see how the theme reads localStorage"
        )
        assert "color-contrast" in light["colour"], (
            f"{path}: axe-core ran none of the colour rules {light['colour']}: check AXE_VERSION's rule names"
        )
        shown = page.evaluate(SHOWN)
        page.evaluate(TO_DARK)
        settle(page, f"{path}, dark mode")
        assert page.locator("html").get_attribute("data-theme") == "dark", (
            f"{path}: the theme's dark-mode button did not switch to dark mode: see its markup (TO_DARK)"
        )
        assert page.evaluate(SHOWN) == shown, f"{path}: dark mode shows other elements: run every rule in dark mode"
        for rule, element, summary in page.evaluate(RUN_AXE, light["colour"])["violations"]:
            found["dark", path, rule, element] = summary
        dark_pages += 1
    context.close()
    assert dark_pages >= 5, f"only {dark_pages} pages were checked in dark mode: is the site complete?"
    new = [[*v, summary] for v, summary in sorted(found.items()) if v not in KNOWN_VIOLATIONS]
    assert new == [], (
        "axe-core found serious or critical violations on the settled pages ([mode, page, rule, element, "
        "what is wrong]): fix each in the page or in sphinxext/static/book.css (a colour must reach 4.5:1 in "
        "every state a reader sees: at rest, hovered, focused) or, if it is the theme's markup and cannot "
        "be fixed here, add (mode, page, rule, element) to KNOWN_VIOLATIONS with the reason:\n"
        + json.dumps(new, indent=1, ensure_ascii=False)
    )
    known = {v for v in KNOWN_VIOLATIONS if v[1] in axe_pages(site, language)}
    assert known <= found.keys(), f"fixed, to remove from KNOWN_VIOLATIONS: {known - found.keys()}"


def squeezed(text):
    """text without white space and with ligatures undone (the PDF's text spaces inline code
    apart from the punctuation after it, and writes "fi" as one glyph), to compare with the page."""
    import unicodedata

    return "".join(unicodedata.normalize("NFKC", text).split())


def pdf_text(pdf):
    """(number of pages, the PDF's text, squeezed)."""
    import io

    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    return len(reader.pages), squeezed(" ".join(p.extract_text() or "" for p in reader.pages))


@pytest.mark.parametrize("language", ["es", "en"])
def test_the_pdf_holds_every_tab_every_dropdown_and_the_first_compatibility_table(server, browser, language):
    """page.pdf() as a reader's Ctrl+P (without the beforeprint event that book.js answers): run
    B's line from the second tab, the last hint from its closed dropdown, and the compatibility
    page's first table (its header and its first row's label) are in the PDF's text."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{server}/{language}/{BREAK_PAGE}")
    run_b = squeezed(page.locator(".sphinx-tabs-panel").nth(1).locator("pre").text_content() or "")
    hint = squeezed(
        page.locator("#phase-25-hints details.sd-dropdown").nth(2).locator(".sd-summary-content").text_content() or ""
    )
    pages, text = pdf_text(page.pdf(format="A4"))
    assert run_b.startswith("h.add_(") and run_b in text, f"run B's tab is not printed: {run_b!r}"
    assert hint[:60] in text, f"the third hint, closed, is not printed: {hint[:60]!r}"
    page.goto(f"{server}/{language}/compatibility.html")
    table = page.locator(".bd-article table").first
    header = [squeezed(c) for c in table.locator("thead th").all_text_contents()]
    first_label = squeezed(table.locator("tbody tr").first.locator("th, td").first.text_content() or "")
    compat_pages, compat_text = pdf_text(page.pdf(format="A4"))
    page.close()
    assert header and all(h in compat_text for h in header), f"the table's header is not printed whole: {header}"
    assert first_label and first_label in compat_text, f"its first row is not printed: {first_label!r}"
    assert pages < 60 and compat_pages < 60, f"{pages} and {compat_pages} pages: is print laying out a page per line?"


# A remembered language, one book in two languages for search engines, and print (issue 12)

ANY_ALTERNATE = re.compile(r'<link rel="alternate" hreflang="([\w-]+)" href="([^"]+)"')


def expected_alternates(path):
    """The hreflang alternates of the page at <lang>/<path>: absolute, and x-default the root."""
    return {"es": f"{SITE_URL}es/{path}", "en": f"{SITE_URL}en/{path}", "x-default": SITE_URL}


def test_every_page_has_absolute_hreflang_alternates_and_x_default(site):
    assert SITE_URL.startswith("https://") and SITE_URL.endswith("/")
    for language in ("es", "en"):
        for page in html_pages(site, language):
            path = page.relative_to(site / language).as_posix()
            found = ANY_ALTERNATE.findall(page.read_text(encoding="utf-8"))
            assert sorted(found) == sorted(expected_alternates(path).items()), page
    root = ANY_ALTERNATE.findall((site / "index.html").read_text(encoding="utf-8"))
    assert sorted(root) == sorted(expected_alternates("index.html").items())


def test_sitemap_lists_every_page_of_both_languages_with_its_alternates(site):
    import xml.etree.ElementTree as ElementTree

    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}
    text = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert "lastmod" not in text  # two builds of one commit write the same sitemap
    listed = {}
    for url in ElementTree.fromstring(text).findall("s:url", ns):
        loc = url.findtext("s:loc", namespaces=ns)
        links = url.findall("xhtml:link", ns)
        assert loc not in listed, f"{loc} listed twice"
        assert {link.get("rel") for link in links} == {"alternate"}
        listed[loc] = {link.get("hreflang"): link.get("href") for link in links}
    assert listed.pop(SITE_URL) == expected_alternates("index.html")  # the root page
    wanted = {
        f"{SITE_URL}{language}/{path}": expected_alternates(path)
        for language in ("es", "en")
        for path in (p.relative_to(site / language).as_posix() for p in html_pages(site, language))
        if path != "search.html"
    }  # the search page has nothing of its own to find
    assert listed == wanted


def reaches(page, server, path):
    """The root page sent the reader on to this page of the site."""
    page.wait_for_url(f"{server}/{path}")
    assert page.locator("html").get_attribute("lang") == path.split("/")[0]


@pytest.mark.parametrize("locale,language", [("es-ES", "es"), ("es", "es"), ("en-US", "en"), ("fr-FR", "en")])
def test_root_page_follows_the_browsers_language_on_a_first_visit(server, browser, locale, language):
    context = browser.new_context(locale=locale)
    page = context.new_page()
    problems = watch(page)
    assert page.evaluate("navigator.languages[0]") == locale
    page.goto(f"{server}/", wait_until="commit")  # the root page sends the reader on at once
    reaches(page, server, f"{language}/index.html")
    # the chooser still shows both languages when asked
    page.goto(f"{server}/index.html?choose")
    assert page.url == f"{server}/index.html?choose"
    for choice in ("#choose-es", "#choose-en"):
        assert page.locator(choice).is_visible()
    context.close()
    assert problems == []


def test_root_page_sends_a_returning_reader_to_the_language_they_chose(server, browser):
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    problems = watch(page)

    def stored():
        return page.evaluate("localStorage.getItem('book-language')")

    def chooses(control, lands_on, language, root="index.html"):
        """The reader clicks control, lands on lands_on; the root page then sends them to language."""
        page.click(control)
        page.wait_for_url(f"{server}/{lands_on}")
        assert stored() == language
        page.goto(f"{server}/{root}", wait_until="commit")
        reaches(page, server, f"{language}/index.html")

    # the browser prefers English; the reader chooses Spanish in a page's switcher
    page.goto(f"{server}/en/{BREAK_PAGE}")
    chooses("#book-language-switch", f"es/{BREAK_PAGE}", "es")
    # and back to English: remembered too (the site's root as a bare folder this time)
    chooses("#book-language-switch", "en/index.html", "en", root="")
    # a choice made on the root page is remembered
    page.goto(f"{server}/index.html?choose")
    assert page.locator("#choose-es").is_visible() and page.locator("#choose-en").is_visible()
    chooses("#choose-es", "es/index.html", "es")
    # a stored value that names no language of the book counts as a first visit
    page.evaluate("localStorage.setItem('book-language', 'xx')")
    page.goto(f"{server}/index.html", wait_until="commit")
    reaches(page, server, "en/index.html")
    context.close()
    assert problems == []


def test_root_page_without_javascript_shows_both_links(server, browser):
    context = browser.new_context(java_script_enabled=False, locale="es-ES")
    page = context.new_page()
    problems = watch(page)
    page.goto(f"{server}/index.html")
    page.wait_for_timeout(300)  # nothing sends the reader on
    assert page.url == f"{server}/index.html"
    for language in ("es", "en"):
        link = page.locator(f"#choose-{language}")
        assert link.is_visible() and link.get_attribute("href") == f"{language}/index.html"
    assert problems == []
    # (the theme's scripts on the next page are refused without JavaScript: not this page's problem)
    page.click("#choose-en")
    page.wait_for_url(f"{server}/en/index.html")
    context.close()


# What a printed page leaves out (execbook/src/execbook/sphinxext/static/print.css): the site's furniture
PRINT_HIDDEN = (
    ".bd-header",
    ".bd-header-article",
    ".bd-sidebar-primary",
    ".bd-sidebar-secondary",
    ".book-language-switcher",
    ".article-header-buttons",
    ".search-button",
    ".prev-next-footer",
    "#pst-back-to-top",
    "button.copybtn",
    "a.headerlink",
)
CLOSED_DETAILS = "[...document.querySelectorAll('details')].filter((d) => !d.open).length"


@pytest.mark.parametrize("language", ["es", "en"])
def test_break_page_prints_the_article_with_outputs_figures_and_dropdowns_open(server, browser, language):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    problems = watch(page)
    page.goto(f"{server}/{language}/{BREAK_PAGE}")
    closed = page.evaluate(CLOSED_DETAILS)
    assert closed >= 3  # hints and hidden outputs
    page.emulate_media(media="print")
    for selector in (".bd-header-article", ".bd-sidebar-primary", ".book-language-switcher", ".search-button"):
        assert page.locator(selector).count() >= 1, f"{selector} is not on the page: update PRINT_HIDDEN"
    for selector in PRINT_HIDDEN:
        elements = page.locator(selector)
        for i in range(elements.count()):
            expect(elements.nth(i)).to_be_hidden()
    # what the browser does before printing: every dropdown opens, with what it holds
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert page.evaluate(CLOSED_DETAILS) == 0
    expect(page.locator("details.sd-dropdown .sd-summary-content").first).to_be_visible()
    images = page.locator("#main-content img")
    assert images.count() >= 2
    for i in range(images.count()):
        expect(images.nth(i)).to_be_visible()
    outputs = page.locator("#main-content div.cell_output")
    assert outputs.count() >= 3
    for i in range(outputs.count()):
        expect(outputs.nth(i)).to_be_visible()
    assert page.locator(".bd-article").evaluate("e => e.getBoundingClientRect().left") < 100  # no sidebar
    pdf = page.pdf(format="A4", print_background=True)
    assert pdf.startswith(b"%PDF") and len(pdf) > 20_000
    shots = DOCS / "_build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    (shots / f"{language}-break-page.pdf").write_bytes(pdf)
    # after printing, the dropdowns the reader had closed close again
    page.evaluate("window.dispatchEvent(new Event('afterprint'))")
    assert page.evaluate(CLOSED_DETAILS) == closed
    page.close()
    assert problems == []
