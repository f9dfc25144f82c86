"""The GitHub Actions workflow: its release matrices read from phase25/releases.py (the one list, in
pyproject.toml's [tool.phase25]), records of every listed release, the jobs it must run, and the
ecosystem's linters (actionlint, zizmor) clean. (It runs on GitHub, not here: this checks what
it says.)"""

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from execbook import config
from phase25 import record, releases

REPO = config.REPO
WORKFLOW = REPO / ".github" / "workflows" / "docs.yml"


def workflow():
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def config_answer(question):
    """What the workflow's `releases` job reads: `python3 phase25/releases.py <question>`, run by a bare
    Python (no project installed, as on the runner before anything is installed)."""
    done = subprocess.run(
        [sys.executable, "-I", str(REPO / "phase25" / "releases.py"), question],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_each_recorded_release_has_its_record_and_no_record_is_unlisted():
    listed = json.loads(config_answer("releases"))
    assert listed == releases.RECORDED_RELEASES
    assert listed == sorted(listed, key=record.release_key) and len(set(listed)) == len(listed)
    records = {
        p.stem.removeprefix("torch-") for p in (REPO / "records").glob("torch-*.json") if not record.is_device_record(p)
    }  # a GPU run's record (torch-2.11.0-cuda.json) is no release
    assert records == set(listed), f"no record: {set(listed) - records}; not listed: {records - set(listed)}"
    assert all(record.load(REPO / "records" / f"torch-{r}.json")["release"] == r for r in listed)


def test_the_matrices_are_read_from_book_config_not_written_in_the_workflow():
    flow = workflow()
    read = " ".join(step.get("run", "") for step in flow["jobs"]["releases"]["steps"])
    for output, question in (("recorded", "releases"), ("book", "book-releases"), ("default", "default-torch")):
        assert f"{output}=$(python3 phase25/releases.py {question})" in read
    assert flow["jobs"]["record"]["strategy"]["matrix"]["torch"] == "${{ fromJSON(needs.releases.outputs.recorded) }}"
    assert flow["jobs"]["book"]["strategy"]["matrix"]["torch"] == "${{ fromJSON(needs.releases.outputs.book) }}"
    book = json.loads(config_answer("book-releases"))
    assert book == [r for r in releases.RECORDED_RELEASES if releases.supported(r)] and releases.default_torch() in book
    assert config_answer("default-torch") == releases.default_torch()


def test_triggers_pull_requests_weekly_and_main():
    on = workflow()[True]  # YAML reads the key `on` as True
    assert "pull_request" in on and on["schedule"] and on["push"]["branches"] == ["main"]


def test_jobs_record_check_build_test_and_deploy():
    flow = workflow()
    runs = lambda job: " ".join(step.get("run", "") for step in flow["jobs"][job]["steps"])  # noqa: E731
    uses = lambda job: [step.get("uses", "") for step in flow["jobs"][job]["steps"]]  # noqa: E731
    assert "-- record --out behaviour-records" in runs("record") and "-- check" in runs("record")
    assert any(u.startswith("actions/upload-artifact") for u in uses("record"))
    assert "nox -s docs" in runs("book") and "drift" not in runs("book")
    assert any(u.startswith("actions/upload-pages-artifact") for u in uses("book"))
    build = next(step for step in flow["jobs"]["book"]["steps"] if step.get("run") == "nox -s docs")
    assert build["env"]["BOOK_TORCH"] == "${{ matrix.torch }}"
    assert "bash .ci/run" in runs("test")
    assert set(flow["jobs"]["deploy"]["needs"]) == {"book", "test"}
    assert flow["jobs"]["deploy"]["steps"][0]["uses"].startswith("actions/deploy-pages")
    assert "refs/heads/main" in flow["jobs"]["deploy"]["if"]


def test_actions_are_pinned_by_commit():
    flow = workflow()
    used = [step["uses"] for job in flow["jobs"].values() for step in job["steps"] if "uses" in step]
    assert used and all(len(u.split("@")[1]) == 40 for u in used), used


def tool(name):
    """The linter installed beside this Python (pyproject.toml's test extra)."""
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    assert found, f"{name} is not installed beside {sys.executable}: pip install -e '.[test]'"
    return found


# The releases to PyPI, each distribution's on its own tag: workflow -> (tag, the distribution's folder)
RELEASES = {
    REPO / ".github" / "workflows" / "inplace-doctor-release.yml": ("inplace-doctor-v*", "inplace_doctor"),
    REPO / ".github" / "workflows" / "execbook-release.yml": ("execbook-v*", "execbook"),
}
BOOK_WORKFLOW = REPO / "execbook" / "docs" / "ci" / "book.yml"  # the one the engine's documentation offers a book


def test_actionlint_finds_nothing():
    linted = [str(WORKFLOW), *map(str, RELEASES), str(BOOK_WORKFLOW)]
    done = subprocess.run([tool("actionlint"), *linted], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("release", RELEASES, ids=lambda path: path.stem)
def test_each_distribution_is_released_on_its_tag_tested_checked_and_published_by_trusted_publishing(release):
    tag, folder = RELEASES[release]
    flow = yaml.safe_load(release.read_text(encoding="utf-8"))
    assert flow[True] == {"push": {"tags": [tag]}} and flow["permissions"] == {}
    jobs = flow["jobs"]
    runs = " ".join(step.get("run", "") for job in jobs.values() for step in job["steps"])
    assert (
        "python -m pytest tests" in runs
        and "twine check --strict" in runs
        and f"python -m build --outdir dist {folder}" in runs
    )
    assert f'"{tag.removesuffix("*")}$version"' in runs, "the tag must name the version being built"
    assert jobs["build"]["needs"] == "test" and jobs["publish"]["needs"] == "build"
    assert jobs["publish"]["permissions"] == {"id-token": "write"}  # and no token: trusted publishing
    assert jobs["publish"]["steps"][-1]["uses"].startswith("pypa/gh-action-pypi-publish@")
    assert "with" not in jobs["publish"]["steps"][-1]
    used = [step["uses"] for job in jobs.values() for step in job["steps"] if "uses" in step]
    assert all(len(u.split("@")[1]) == 40 for u in used), used
    classifiers = tomllib.loads((REPO / folder / "pyproject.toml").read_text(encoding="utf-8"))
    named = {c.rsplit(" :: ", 1)[1] for c in classifiers["project"]["classifiers"] if c.count(" :: ") == 2}
    assert set(jobs["test"]["strategy"]["matrix"]["python"]) == {v for v in named if v[:1] == "3" and "." in v}


def test_zizmor_finds_nothing():
    linted = [str(REPO / ".github"), str(BOOK_WORKFLOW)]
    done = subprocess.run([tool("zizmor"), "--offline", *linted], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_engine_s_documentation_is_built_by_ci_and_published_beside_the_book():
    """execbook/docs builds in CI (.ci/run: a broken engine page fails it) and in the `book` job, which
    puts its site in the artifact's folder execbook/, where its [tool.book] site-url says it lives."""
    assert ".venv/bin/nox -s engine-docs" in (REPO / ".ci" / "run").read_text(encoding="utf-8")
    book = " ".join(step.get("run", "") for step in workflow()["jobs"]["book"]["steps"])
    assert "nox -s engine-docs" in book and "cp -rL execbook/docs/docs/_build/html docs/_build/html/execbook" in book
    engine = tomllib.loads((REPO / "execbook" / "docs" / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["book"]
    assert engine["site-url"] == config.SITE_URL + "execbook/"
