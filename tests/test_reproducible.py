"""Two builds of one commit publish the same site, but for their dates (the build date, each
page's stamp time, when each page ran): no absolute path, no random id, no timing leaks in.

The `site` fixture is this checkout's build. In CI (.ci/run) that is a cold build of a fresh
clone; on a contributor's machine it may be incremental, and then this test also proves that an
incremental build publishes what a cold one does (every build writes a fresh site: execbook.build).
The second, `cold_build` (tests/conftest.py), is cold, of a scratch copy in another directory,
with the network cut off (a network namespace holding only loopback), where the machine allows
it: nothing may download during a build.
"""

import subprocess
import sys

import pytest
from conftest import site_differences

PROBE = "import socket; socket.create_connection(('pypi.org', 443), timeout=5)"


def test_the_network_is_really_cut(offline):
    probe = offline([sys.executable, "-c", PROBE])
    if probe is None:
        pytest.skip("unshare --net is not permitted on this machine")
    done = subprocess.run(probe, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and ("gaierror" in done.stderr or "OSError" in done.stderr), done.stderr


def test_a_cold_build_elsewhere_publishes_the_same_site(site, cold_build):
    copy, _ = cold_build
    differences = site_differences(site, copy / "docs" / "_build" / "html")
    assert not differences, (
        "the two sites differ; if this checkout's site is from an older build, rebuild it "
        "(nox -s docs) and run the test again:\n" + "\n".join(differences[:30])
    )


def test_only_dates_are_forgiven(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for site, stamp, path in ((a, "2026-12-03 07:41 UTC", "/work/x"), (b, "2027-01-09 23:05 UTC", "/tmp/y")):
        (site / "en").mkdir(parents=True)
        (site / "en" / "index.html").write_text(f"<p>⚙ torch 2.13.0 · {stamp}</p>\n<p>{path}</p>\n")
        (site / "en" / "status.html").write_text(f"built on {stamp[:10]}\n")
    (b / "sitemap.xml").write_text("<urlset/>")
    assert site_differences(a, b) == [
        f"only in {b}: sitemap.xml",
        "en/index.html: b'<p>/work/x</p>\\n' != b'<p>/tmp/y</p>\\n'",  # from the line where they differ
    ]
