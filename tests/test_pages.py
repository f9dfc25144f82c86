"""The deploy, checked here: the GitHub Pages artifact made exactly as the workflow's `book` job
uploads it, served from a sub-path as GitHub Pages serves a project site
(https://<owner>.github.io/<repository>/), every link inside it followed.

A site deployed from an artifact (actions/deploy-pages) is served as it is, without Jekyll: the
folders whose names start with "_" (_static, _images, _downloads) are served with no `.nojekyll`
(which the action would leave out anyway: it drops hidden files). This test proves it by fetching them."""

import re
import subprocess
import tarfile
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from http.client import InvalidURL
from pathlib import PurePosixPath
from urllib.error import HTTPError, URLError
from urllib.parse import urldefrag, urljoin, urlsplit
from urllib.request import urlopen

import pytest
import yaml
from conftest import REPO, serve
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from execbook import config

WORKFLOW = REPO / ".github" / "workflows" / "docs.yml"
# The upload action whose archive this test makes, by commit, and its archive command (that
# release's action.yml, Linux runner). Dependabot's pull request that moves the pin fails here:
# read the new release's action.yml and update both.
UPLOAD_ACTION = "actions/upload-pages-artifact@fc324d3547104276b827a68afc52ff2a11cc49c9"  # v5.0.0


def archive_command(folder, archive, include_hidden_files):
    return [
        "tar",
        "--dereference",
        "--hard-dereference",
        "--directory",
        str(folder),
        "-cf",
        str(archive),
        "--exclude=.git",
        "--exclude=.github",
        *([] if include_hidden_files else ["--exclude=.[^/]*"]),
        ".",
    ]


def upload_step():
    """The `book` job's step that uploads the site to Pages, and what it is given."""
    steps = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["book"]["steps"]
    step = next(s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert step["uses"] == UPLOAD_ACTION, (
        f"the workflow uploads the site with {step['uses']}, this test imitates {UPLOAD_ACTION}: read "
        "that release's action.yml (its tar command) and update UPLOAD_ACTION and archive_command"
    )
    return step["with"]


@pytest.fixture(scope="module")
def deployed(site, tmp_path_factory):
    """The artifact, unpacked where a project site lives: <root>/<repository name>/."""
    given = upload_step()
    folder = REPO / given["path"]
    assert folder.resolve() == site.resolve(), f"the workflow uploads {folder}, the build writes the site to {site}"
    archive = tmp_path_factory.mktemp("pages") / "artifact.tar"
    hidden = str(given.get("include-hidden-files", "false")).lower() == "true"
    subprocess.run(archive_command(folder, archive, hidden), check=True)
    root = tmp_path_factory.mktemp("host")
    with tarfile.open(archive) as tar:
        # extraction filters came with Python 3.11.4: Debian 12's 3.11.2 extracts our own archive as is
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(root / PurePosixPath(urlsplit(config.SITE_URL).path).name, **safe)
    return root


@pytest.fixture(scope="module")
def host(deployed):
    """(address of the site, as SITE_URL but on this machine; the unpacked artifact's folder)."""
    base = urlsplit(config.SITE_URL).path
    with serve(deployed) as address:
        yield address + base, deployed / base.strip("/")


class References(HTMLParser):
    """Every address a page asks for or links to: href, src, srcset (and poster, data)."""

    def __init__(self):
        super().__init__()
        self.found, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name"):
                self.ids.add(value)
            elif name in ("href", "src", "poster", "data"):
                self.found.append(value)
            elif name == "srcset":
                self.found += [part.split()[0] for part in value.split(",") if part.strip()]


CSS_URL = re.compile(r"""url\(\s*["']?([^"')]+)["']?\s*\)""")


def get(url):
    """(status, body) of a GET."""
    try:
        with urlopen(url, timeout=30) as answer:
            return answer.status, answer.read()
    except HTTPError as error:
        return error.code, b""
    except (URLError, InvalidURL) as error:
        return f"no answer ({error})", b""


def test_site_url_is_the_project_site_of_the_repository():
    """GitHub Pages serves the repository owner/name at https://owner.github.io/name/."""
    owner, name = urlsplit(config.REPOSITORY).path.strip("/").split("/")
    assert config.SITE_URL == f"https://{owner.lower()}.github.io/{name}/", (
        "pyproject.toml [tool.book]: site-url is not where GitHub Pages serves the repository's site"
    )


def test_the_artifact_holds_the_chooser_both_languages_and_the_sitemap_and_no_hidden_file(host, site):
    _, folder = host
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert {"index.html", "sitemap.xml"} <= files
    for language in config.LANGUAGES:
        built = {p.relative_to(site).as_posix() for p in (site / language).rglob("*.html")}
        assert built and built <= files, f"{language}: pages missing from the artifact: {sorted(built - files)[:5]}"
    hidden = sorted(f for f in files if any(part.startswith(".") for part in f.split("/")))
    assert hidden == [], f"hidden files the upload action leaves out reached the artifact: {hidden}"


def test_every_link_and_asset_resolves_from_the_sub_path(host):
    """Every page and style sheet of the artifact, as served: each address it refers to on this
    site (relative, root-relative, or absolute under SITE_URL) answers 200, and a link to a place
    in a page (#id) finds that place. A root-relative address (/_static/...) would miss the
    sub-path and fail here."""
    base, folder = host
    site_root = urlsplit(base)
    broken, pending, seen, anchors = [], [], set(), {}

    def local(address):
        """The address on this machine, or None if it leaves the site."""
        if address.startswith(config.SITE_URL):
            return base + address[len(config.SITE_URL) :]
        parts = urlsplit(address)
        return address if (parts.scheme, parts.netloc) == (site_root.scheme, site_root.netloc) else None

    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        # the pages (not the theme's templates under _static/, which no page loads) and style sheets
        if path.suffix == ".css" or (path.suffix == ".html" and "/_" not in f"/{name}"):
            pending.append(base + name)
    for url in pending:
        status, body = get(url)
        if status != 200:
            broken.append(f"{url} answers {status}")
            continue
        text = body.decode("utf-8", errors="replace")
        if url.endswith(".css"):
            addresses = [a for a in CSS_URL.findall(text) if not a.startswith("data:")]
        else:
            parser = References()
            parser.feed(text)
            anchors[url] = parser.ids
            addresses = parser.found
        for address in addresses:
            if address.startswith(("mailto:", "javascript:", "data:", "#")):
                continue
            target = local(urljoin(url, address))
            if target is None:
                continue
            if not target.startswith(base):
                broken.append(f"{url} refers to {address}: outside the site's sub-path {urlsplit(base).path}")
                continue
            seen.add((url, target))
    for url, target in sorted(seen):
        page, fragment = urldefrag(target)
        status, body = get(page)
        if status != 200:
            broken.append(f"{url} -> {target} answers {status}")
        elif fragment and page.endswith(".html"):
            if page not in anchors:
                parser = References()
                parser.feed(body.decode("utf-8", errors="replace"))
                anchors[page] = parser.ids
            if fragment not in anchors[page]:
                broken.append(f"{url} -> {target}: no element with id {fragment!r}")
    assert len(seen) > 100, f"only {len(seen)} links followed: is the site complete?"
    assert broken == [], f"{len(broken)} addresses do not resolve on the deployed site:\n" + "\n".join(broken[:40])


def test_the_sitemap_lists_pages_that_the_deployed_site_serves(host):
    base, _ = host
    sitemap = ET.fromstring(get(base + "sitemap.xml")[1])
    names = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    listed = [loc.text or "" for loc in sitemap.findall("s:url/s:loc", names)]
    assert listed and all(u.startswith(config.SITE_URL) for u in listed), listed[:3]
    missing = [u for u in listed if get(base + u[len(config.SITE_URL) :])[0] != 200]
    assert missing == [], f"the sitemap lists addresses the site does not serve: {missing}"


def test_a_reader_arrives_at_the_sub_path_and_every_request_succeeds(host, browser):
    """In the browser, from the bare sub-path: the chooser sends the reader to a language, the
    break page loads, its switcher leads to the other language, and the search finds the lesson.
    No request of any of them fails (style sheets, scripts, fonts, images, the search index)."""
    base, _ = host
    context = browser.new_context(locale="es-ES")
    page = context.new_page()
    failed = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    # A request the browser cancels because the reader moved on (the chooser's location.replace, a
    # favicon still loading when the next page is asked for) is not the site's failure: ERR_ABORTED.
    # A missing file answers 404 (the response handler); anything else that fails counts.
    page.on(
        "requestfailed",
        lambda r: None if r.failure == "net::ERR_ABORTED" else failed.append(f"failed {r.url} ({r.failure})"),
    )
    page.goto(base)
    page.wait_for_url(base + "es/index.html")
    page.goto(base + "es/breaks/25-inplace-autograd.html")
    page.wait_for_load_state("networkidle")
    page.locator("#book-language-switch").click()
    page.wait_for_url(re.compile(re.escape(base + "en/") + r"breaks/25-inplace-autograd\.html.*"))
    page.goto(base + "en/search.html?q=version+counter")
    try:
        page.wait_for_selector("#search-results li", timeout=30_000)
    except PlaywrightTimeout:
        failed.append("en/search.html?q=version+counter: no result within 30 s")
    page.wait_for_load_state("networkidle")
    context.close()
    assert failed == [], (
        f"on the site served from {urlsplit(base).path}, these failed: {failed}. A file the build writes "
        "must be referred to by a relative address (never /_static/...); run `nox -s docs`, then "
        "this test, and look for the address in docs/_build/html"
    )
