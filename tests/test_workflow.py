"""The GitHub Actions workflow: release matrices in step with noxfile.py and records/, on pull
requests and weekly, uploading the behaviour records and deploying the site from main. (It runs on
GitHub, not here: this checks what it says.)"""

import ast
from pathlib import Path

import yaml
from packaging.requirements import Requirement

from drift import claims, record

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = REPO / ".github" / "workflows" / "docs.yml"


def nox_releases():
    """RECORDED_RELEASES of noxfile.py (read, not imported: nox is not installed here)."""
    tree = ast.parse((REPO / "noxfile.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "RECORDED_RELEASES":
            return ast.literal_eval(node.value)
    raise AssertionError("noxfile.py has no RECORDED_RELEASES")


def workflow():
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def matrix(job):
    return workflow()["jobs"][job]["strategy"]["matrix"]["torch"]


def test_the_record_matrix_is_noxs_list_and_each_release_has_its_record():
    """Every listed release has a committed record, and no record exists of an unlisted one."""
    listed = nox_releases()
    assert matrix("record") == listed
    assert listed == sorted(listed, key=record.release_key) and len(set(listed)) == len(listed)
    records = {p.stem.removeprefix("torch-") for p in (REPO / "records").glob("torch-*.json")}
    assert records == set(listed), f"no record: {set(listed) - records}; not listed: {records - set(listed)}"
    assert all(record.load(REPO / "records" / f"torch-{r}.json")["release"] == r for r in listed)


def test_the_book_matrix_is_the_listed_releases_in_pyprojects_range():
    """noxfile.py derives BOOK_RELEASES with packaging; drift's own reading of the range agrees."""
    specifier = Requirement(claims.supported_range()).specifier
    in_range = [r for r in nox_releases() if specifier.contains(r)]
    assert matrix("book") == in_range
    assert [r for r in nox_releases() if claims.supported(r)] == in_range
    assert "BOOK_RELEASES = [r for r in RECORDED_RELEASES if TORCH_REQUIREMENT.specifier.contains(r)]" in \
        (REPO / "noxfile.py").read_text(encoding="utf-8")


def test_triggers_pull_requests_weekly_and_main():
    on = workflow()[True]  # YAML reads the key `on` as True
    assert "pull_request" in on and on["schedule"] and on["push"]["branches"] == ["main"]


def test_steps_record_check_build_and_deploy():
    flow = workflow()
    runs = lambda job: " ".join(step.get("run", "") for step in flow["jobs"][job]["steps"])  # noqa: E731
    uses = lambda job: [step.get("uses", "") for step in flow["jobs"][job]["steps"]]  # noqa: E731
    assert "-- record --out behaviour-records" in runs("record") and "-- check" in runs("record")
    assert any(u.startswith("actions/upload-artifact") for u in uses("record"))
    assert "nox -s docs" in runs("book") and "drift" not in runs("book")
    assert any(u.startswith("actions/upload-pages-artifact") for u in uses("book"))
    assert flow["jobs"]["deploy"]["needs"] == "book"
    assert flow["jobs"]["deploy"]["steps"][0]["uses"].startswith("actions/deploy-pages")
    assert "refs/heads/main" in flow["jobs"]["deploy"]["if"]
    build = next(step for step in flow["jobs"]["book"]["steps"] if step.get("run") == "nox -s docs")
    assert build["env"]["BOOK_TORCH"] == "${{ matrix.torch }}"
