"""The GitHub Actions workflow: a release matrix in step with noxfile.py, on pull requests and
weekly, uploading the behaviour records and deploying the site from main. (It runs on GitHub,
not here: this checks what it says.)"""

import ast
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = REPO / ".github" / "workflows" / "docs.yml"


def nox_releases():
    tree = ast.parse((REPO / "noxfile.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "TORCH_RELEASES":
            return ast.literal_eval(node.value)
    raise AssertionError("noxfile.py has no TORCH_RELEASES")


def workflow():
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def test_matrix_is_the_supported_releases():
    matrix = workflow()["jobs"]["book"]["strategy"]["matrix"]["torch"]
    assert matrix == nox_releases()
    records = {p.stem.removeprefix("torch-") for p in (REPO / "records").glob("torch-*.json")}
    assert records <= set(matrix), "a committed record of a release the matrix does not build"


def test_triggers_pull_requests_weekly_and_main():
    on = workflow()[True]  # YAML reads the key `on` as True
    assert "pull_request" in on and on["schedule"] and on["push"]["branches"] == ["main"]


def test_steps_record_check_build_and_deploy():
    flow = workflow()
    steps = flow["jobs"]["book"]["steps"]
    runs = " ".join(step.get("run", "") for step in steps)
    uses = [step.get("uses", "") for step in steps]
    assert "-- record --out behaviour-records" in runs and "-- check" in runs and "nox -s docs" in runs
    assert any(u.startswith("actions/upload-artifact") for u in uses)
    assert any(u.startswith("actions/upload-pages-artifact") for u in uses)
    assert flow["jobs"]["deploy"]["steps"][0]["uses"].startswith("actions/deploy-pages")
    assert "refs/heads/main" in flow["jobs"]["deploy"]["if"]
    build = next(step for step in steps if step.get("run") == "nox -s docs")
    assert build["env"]["BOOK_TORCH"] == "${{ matrix.torch }}"
