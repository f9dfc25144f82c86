"""Behaviour records (records/*.json), their differences, and the drift command."""

import copy
import json
import subprocess
import sys

import pytest

from drift import claims, record

REQUIRED_RELEASES = ("2.12.1", "2.13.0")


@pytest.fixture(scope="module")
def committed():
    return record.committed()


@pytest.fixture(scope="module")
def live():
    return record.measure()


def test_required_releases_are_recorded(committed):
    assert set(REQUIRED_RELEASES) <= set(committed)


def test_every_record_covers_every_claim_and_every_claim_held(committed):
    for release, r in committed.items():
        assert set(r["claims"]) == set(claims.CLAIMS), f"re-record torch {release}: the claims changed"
        broken = [name for name, c in r["claims"].items() if not c["holds"]]
        assert not broken, f"torch {release}: {broken}"
        assert set(r["message"]) == set(record.MESSAGE_PARTS)


def test_the_installed_release_matches_its_record(committed, live):
    """The committed record of this release is what this release does now (no stale record)."""
    mine = committed.get(live["release"])
    if mine is None:
        pytest.skip(f"no committed record of torch {live['release']}")
    assert record.differences(mine, live) == [], record.format_differences(mine, live)


def test_records_differ_in_wording_between_2_12_and_2_13(committed):
    """facts §2: "which is output 0 of" names the backward node on 2.12, the forward op on 2.13."""
    rows = {what: (a, b) for what, a, b in record.differences(committed["2.12.1"], committed["2.13.0"])}
    assert rows["message.output_of"] == ("AddBackward0", "Add")
    assert not [what for what in rows if what.startswith("claim ")], "a behaviour changed, not the wording"


def test_the_message_parts_are_read_from_the_message(live):
    message = live["message"]
    assert message["anomaly_off"].startswith("RuntimeError: ")
    for part in ("tensor", "output_of", "version_now", "version_expected"):
        assert message[part] and message[part] in message["anomaly_off"], part
    assert message["anomaly_off"].endswith(message["hint_off"])
    assert message["anomaly_on"].endswith(message["hint_on"])


def test_differences_see_wording_and_claims_but_not_dates(live):
    other = copy.deepcopy(live)
    other.update(measured="1999-01-01", python="0.0", torch="9.9.9")
    assert record.differences(live, other) == []
    other["message"]["output_of"] = "SomethingElse"
    name = next(iter(other["claims"]))
    other["claims"][name]["holds"] = False
    rows = record.differences(live, other)
    assert [what for what, *_ in rows] == ["message.output_of", f"claim {name}"]
    assert "message.output_of" in record.format_differences(live, other)


def test_a_part_that_disappears_is_reported_as_absent():
    from drift import message

    parts = message.parts("one of the variables ... modified by an inplace operation: [torch.FloatTensor "
                          "[2, 3]], is at version 2; expected version 1 instead.")
    assert parts["output_of"] is None and parts["hint"] is None
    assert (parts["tensor"], parts["version_now"], parts["version_expected"]) == ("[torch.FloatTensor [2, 3]]", "2", "1")


# --- python -m drift


def drift_command(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "drift", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600, env={**__import__("os").environ, "OMP_NUM_THREADS": "1"})


def test_report_prints_what_changed_between_committed_releases():
    done = drift_command("report")
    assert done.returncode == 0, done.stderr
    assert "torch 2.12.1 -> 2.13.0:" in done.stdout and "message.output_of" in done.stdout


@pytest.mark.parametrize("args,says", [
    ((), "usage: python -m drift"),
    (("frobnicate",), "unknown command 'frobnicate'"),
    (("report", "no/such/record.json", "records/torch-2.13.0.json"), "no such record"),
    (("report", "records/torch-2.13.0.json"), "at least two records"),
    (("record", "--out"), "--out needs a folder"),
    (("check", "extra"), "check takes only --records DIR"),
    (("check", "--save"), "--save needs a file"),
    (("check", "--save", "records"), "a folder, not a file"),
    (("check", "--records", "no/such/folder"), "no such folder"),
    (("record", "--out", "README.md"), "not a folder"),
])
def test_bad_input_is_one_line_and_exit_2(repo, args, says):
    done = drift_command(*args, cwd=repo)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("drift: error: ") and says in done.stderr
    assert "Traceback" not in done.stderr


def test_report_refuses_a_file_that_is_not_a_record(tmp_path):
    bad = tmp_path / "torch-1.0.0.json"
    bad.write_text("[1, 2]")
    done = drift_command("report", bad, bad)
    assert done.returncode == 2 and "not a behaviour record" in done.stderr


def test_record_writes_only_into_the_folder_given(tmp_path, repo, snapshot):
    before = snapshot(repo / "records"), [p.read_bytes() for p in sorted((repo / "records").glob("*"))]
    done = drift_command("record", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    written = tmp_path / f"torch-{record.release()}.json"
    assert json.loads(written.read_text())["release"] == record.release()
    assert (snapshot(repo / "records"), [p.read_bytes() for p in sorted((repo / "records").glob("*"))]) == before


def test_check_fails_on_a_stale_record_and_names_the_fix(tmp_path, committed):
    stale = copy.deepcopy(committed[record.release()])
    stale["message"]["hint_off"] = "a hint this release never printed"
    (tmp_path / f"torch-{record.release()}.json").write_text(json.dumps(stale))
    saved = tmp_path / "live.json"
    done = drift_command("check", "--records", tmp_path, "--save", saved)
    assert done.returncode == 1 and not saved.exists()
    assert "message.hint_off" in done.stdout
    assert f"no longer matches what torch {record.release()} does" in done.stderr
    assert f"nox -s \"drift(torch='{record.release()}')\"" in done.stderr


def test_check_passes_against_the_committed_records_and_saves_what_it_measured(tmp_path):
    saved = tmp_path / "claims" / "live.json"
    done = drift_command("check", "--save", saved)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"matches torch {record.release()}" in done.stdout
    live = record.load(saved)
    assert record.differences(record.committed()[record.release()], live) == []
    assert set(record.outcomes(live)) == set(claims.CLAIMS)

