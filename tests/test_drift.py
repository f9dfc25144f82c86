"""Behaviour records (records/*.json), their differences, and the drift command."""

import copy
import json
import subprocess
import sys

import pytest

from phase25 import claims, record

REQUIRED_RELEASES = ("2.12.1", "2.13.0")
pytestmark = pytest.mark.usefixtures("as_the_build")  # the build's results, read back (conftest)


@pytest.fixture(scope="module")
def committed():
    return record.committed()


@pytest.fixture(scope="module")
def live(as_the_build):
    """The installed torch's record, as the last build measured it (its store, read back)."""
    return record.measure()


def test_required_releases_are_recorded(committed):
    assert set(REQUIRED_RELEASES) <= set(committed)


def test_every_required_claim_each_record_measured_held(committed):
    """A record need not know every claim (a newer claim is "not measured" there); on a release the
    book is built on, what it measured held, or did not apply, or is only recorded per release
    (diagnose-api:*). Outside that range nothing is broken: the record is history."""
    for release, r in committed.items():
        broken = [name for name, outcome in record.outcomes(r).items() if outcome.broken]
        assert not broken, f"torch {release}: {broken}"
        assert set(r["message"]) == set(record.MESSAGE_PARTS)
    assert any(claims.supported(release) for release in committed)


def test_each_record_has_every_compile_backend(committed):
    """Per backend, either what it did (every field) or only why this release cannot run it."""
    from phase25.compiled import BACKENDS

    for release, r in committed.items():
        assert set(r["compile"]) == set(BACKENDS), release
        for backend, section in r["compile"].items():
            fields = {"not_applicable"} if "not_applicable" in section else set(record.COMPILE_FIELDS)
            assert set(section) == fields, (release, backend)
            assert section.get("not_applicable", claims.NOT_APPLICABLE).startswith(claims.NOT_APPLICABLE)


def test_a_claim_that_does_not_apply_says_what_is_missing(committed):
    for release, r in committed.items():
        for name, outcome in record.outcomes(r).items():
            if not outcome.applicable:
                assert not outcome.holds and f"torch {release}" in outcome.seen, (release, name)


def test_no_torch_compile_no_compile_claim(committed):
    """torch.compile appeared in 2.0: before it, every compile claim and section says so."""
    old = [r for release, r in committed.items() if record.release_key(release) < (2, 0, 0)]
    assert old, "no record of a release before torch.compile"
    for r in old:
        assert all(
            s["not_applicable"].startswith("not applicable: torch.compile is missing") for s in r["compile"].values()
        )
        assert all(
            c["seen"].startswith(claims.NOT_APPLICABLE) for n, c in r["claims"].items() if n.startswith("compile:")
        )


@pytest.mark.parametrize(
    "name,inside",
    [("1.13.1", False), ("2.9.1", False), ("2.10.0", True), ("2.15.0", True), ("2.16.0", False), ("2.13.0+cpu", True)],
)
def test_the_supported_range_is_pyprojects(name, inside):
    from phase25.releases import TORCH_REQUIREMENT

    assert TORCH_REQUIREMENT.startswith("torch")
    assert claims.supported(name) is inside


def test_outside_the_range_a_claim_that_does_not_hold_is_recorded_not_broken():
    required = next(name for name, c in claims.CLAIMS.items() if c.required)
    assert claims.Outcome(required, False, "it did not hold", "2.13.0").broken
    assert not claims.Outcome(required, False, "it did not hold", "1.13.1").broken
    assert not claims.Outcome(required, False, claims.NOT_APPLICABLE + "x is missing", "2.13.0").broken


@pytest.mark.parametrize(
    "raised,api",
    [
        (
            "AttributeError: module 'torch.autograd.graph' has no attribute 'allow_mutation_on_saved_tensors'",
            "torch.autograd.graph.allow_mutation_on_saved_tensors",
        ),
        ("ModuleNotFoundError: No module named 'torch.func'", "torch.func"),
        (
            "ImportError: cannot import name 'functional_call' from 'torch.func' (/x/torch/func/__init__.py)",
            "torch.func.functional_call",
        ),
        ("AttributeError: module 'numpy' has no attribute 'foo'", None),
        ("AttributeError: 'Tensor' object has no attribute 'untyped_storage'", None),
        ("RuntimeError: one of the variables needed for gradient computation", None),
        (None, None),
    ],
)
def test_a_case_that_raised_for_a_missing_torch_api(raised, api):
    assert claims.missing_api(raised) == api


def test_a_case_claim_is_not_applicable_where_its_example_lacks_a_torch_api(monkeypatch):
    from execbook import Outcome

    missing = Outcome(
        "fix",
        False,
        raised="ModuleNotFoundError: No module named 'torch.func'",
        seen="it raised ModuleNotFoundError: No module named 'torch.func'",
    )
    monkeypatch.setattr(claims, "outcome", lambda name: missing)
    holds, seen = claims._case_claim("fix")()
    assert not holds and seen.startswith(f"{claims.NOT_APPLICABLE}torch.func is missing from torch ")
    other = Outcome("fix", False, raised="AttributeError: 'Tensor' object has no attribute 'x'", seen="it raised")
    monkeypatch.setattr(claims, "outcome", lambda name: other)
    assert not claims._case_claim("fix")()[1].startswith(claims.NOT_APPLICABLE)


def test_a_claim_a_record_lacks_is_not_a_difference(live):
    older = copy.deepcopy(live)
    name = next(iter(older["claims"]))
    del older["claims"][name]
    assert record.differences(older, live) == []


def test_records_do_not_depend_on_the_models_sizes(committed, monkeypatch):
    """A course author who resizes the mini-GPT (n_embd 64 -> 48, n_layer 2 -> 3) leaves every
    record valid: the message is recorded with the sizes named, not as numbers."""
    from minigpt import experiments
    from minigpt.experiments import CACHE
    from minigpt.train import model_config

    resized = lambda data, **switches: model_config(data, **switches).__class__(  # noqa: E731
        **{**vars(model_config(data, **switches)), "n_embd": 48, "n_layer": 3}
    )
    monkeypatch.setattr(experiments, "model_config", resized)
    monkeypatch.setattr(record, "model_config", resized)
    monkeypatch.setattr(experiments, "_memory", {})
    monkeypatch.delenv(CACHE, raising=False)
    assert "[16, 9, 48]], which is output 0 of" in experiments.run_b(False).error
    assert "is at version 6; expected version 5 instead" in experiments.run_b(False).error
    assert record.measure_message() == committed[claims.release()]["message"]


def test_records_hold_no_source_text_and_no_sizes_of_the_project(committed):
    """What a record holds is decided by the release: renaming or resizing parts of the mini-GPT
    must leave every record valid, so no line of the model's source and no concrete shape."""
    import re

    from execbook import REPO

    source = {
        line.strip()
        for path in (REPO / "minigpt").glob("*.py")
        for line in path.read_text().splitlines()
        if len(line.strip()) > 12 and "(" in line
    }
    for release, r in committed.items():
        text = json.dumps(r, ensure_ascii=False)
        assert not [line for line in source if line in text], release
        assert not re.search(r"\[\d+, \d+, \d+\]", text), release
        assert all(set(c) == {"holds"} if c["holds"] else set(c) == {"holds", "seen"} for c in r["claims"].values())


def test_the_installed_release_matches_its_record(committed, live):
    """The committed record of this release is what this release does now (no stale record)."""
    mine = committed.get(live["release"])
    if mine is None:
        pytest.skip(f"no committed record of torch {live['release']}")
    assert record.differences(mine, live) == [], record.format_differences(mine, live)


def test_records_differ_in_wording_between_2_12_and_2_13(committed):
    """The words "which is output 0 of" name the backward node on 2.12, the forward op on 2.13."""
    rows = {what: (a, b) for what, a, b in record.differences(committed["2.12.1"], committed["2.13.0"])}
    assert rows["message.output_of"] == ("AddBackward0", "Add")
    changed = [what.removeprefix("claim ") for what in rows if what.startswith("claim ")]
    assert all(not claims.CLAIMS[name].required for name in changed), "a required behaviour changed"


def test_the_diagnoser_reads_custom_function_nodes_from_2_13_on(committed):
    """Measured: on 2.12.1, reading a custom Function node's raw saved tensors right after the
    forward raises; on 2.13.0 it works (the compatibility page shows the row)."""
    name = "diagnose-api:custom-function-node"
    assert (committed["2.12.1"]["claims"][name]["holds"], committed["2.13.0"]["claims"][name]["holds"]) == (False, True)
    assert "Trying to backward through the graph a second time" in committed["2.12.1"]["claims"][name]["seen"]


def test_the_message_parts_are_read_from_the_message(live):
    message = live["message"]
    assert message["anomaly_off"].startswith("RuntimeError: ")
    for part in ("tensor", "output_of", "version_now", "version_expected"):
        assert message[part] and message[part] in message["anomaly_off"], part
    assert message["anomaly_off"].endswith(message["hint_off"])
    assert message["anomaly_on"].endswith(message["hint_on"])


def test_differences_see_the_compile_sections_unless_one_lacks_them(live):
    other = copy.deepcopy(live)
    other["compile"]["eager"]["b_raised_at"] = "somewhere else"
    assert [what for what, *_ in record.differences(live, other)] == ["compile.eager.b_raised_at"]
    other["compile"]["inductor"] = {"not_applicable": claims.NOT_APPLICABLE + "no C++ compiler"}
    assert "compile.inductor.not_applicable" in [what for what, *_ in record.differences(live, other)]
    del other["compile"]
    assert record.differences(other, live) == [] == record.differences(live, other)


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
    from minigpt import message

    parts = message.parts(
        "one of the variables ... modified by an inplace operation: [torch.FloatTensor "
        "[2, 3]], is at version 2; expected version 1 instead."
    )
    assert parts["output_of"] is None and parts["hint"] is None
    assert (parts["tensor"], parts["version_now"], parts["version_expected"]) == (
        "[torch.FloatTensor [2, 3]]",
        "2",
        "1",
    )


# --- python -m phase25


def drift_command(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "phase25", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        env={**__import__("os").environ, "OMP_NUM_THREADS": "1"},
    )


def test_report_prints_what_changed_between_committed_releases(capsys):
    from phase25 import __main__ as command

    assert command.main(["report"]) == 0
    out = capsys.readouterr().out
    assert "torch 2.12.1 -> 2.13.0:" in out and "message.output_of" in out


@pytest.mark.parametrize(
    "args,says",
    [
        ((), "usage: python -m phase25"),
        (("frobnicate",), "unknown command 'frobnicate'"),
        (("report", "no/such/record.json", "records/torch-2.13.0.json"), "no such record"),
        (("report", "records/torch-2.13.0.json"), "at least two records"),
        (("record", "--out"), "--out needs a folder"),
        (("check", "extra"), "check takes only --records DIR"),
        (("check", "--save"), "--save needs a file"),
        (("check", "--save", "records"), "a folder, not a file"),
        (("check", "--records", "no/such/folder"), "no such folder"),
        (("record", "--out", "README.md"), "not a folder"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(repo, monkeypatch, capsys, args, says):
    from phase25 import __main__ as command

    monkeypatch.chdir(repo)
    assert command.main(list(args)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("phase25: error: ") and says in err


def test_bad_input_through_the_real_entry_point(repo):
    done = drift_command("check", "--records", "no/such/folder", cwd=repo)
    assert done.returncode == 2 and done.stderr.startswith("phase25: error: ") and "Traceback" not in done.stderr


def test_report_refuses_a_file_that_is_not_a_record(tmp_path, capsys):
    from phase25 import __main__ as command

    bad = tmp_path / "torch-1.0.0.json"
    bad.write_text("[1, 2]")
    assert command.main(["report", str(bad), str(bad)]) == 2 and "not a behaviour record" in capsys.readouterr().err


def in_process(*args):
    """python -m phase25 ARGS, run in this process (the claims' results are shared with the tests)."""
    from phase25 import __main__ as command

    return command.main([str(a) for a in args])


def test_record_writes_only_into_the_folder_given(tmp_path, repo, snapshot):
    before = snapshot(repo / "records"), [p.read_bytes() for p in sorted((repo / "records").glob("*"))]
    assert in_process("record", "--out", tmp_path) == 0
    written = tmp_path / f"torch-{claims.release()}.json"
    assert json.loads(written.read_text())["release"] == claims.release()
    assert (snapshot(repo / "records"), [p.read_bytes() for p in sorted((repo / "records").glob("*"))]) == before


def test_check_tells_a_stale_record_from_a_broken_claim(tmp_path, committed, capsys):
    """Wording only: exit 3, and what was measured is still saved (the book still builds)."""
    stale = copy.deepcopy(committed[claims.release()])
    stale["message"]["hint_off"] = "a hint this release never printed"
    del stale["claims"][next(iter(stale["claims"]))]  # a claim newer than the record: not measured
    (tmp_path / f"torch-{claims.release()}.json").write_text(json.dumps(stale))
    saved = tmp_path / "live.json"
    assert in_process("check", "--records", tmp_path, "--save", saved) == 3 and saved.exists()
    out, err = capsys.readouterr()
    assert "message.hint_off" in out and "\n  claim " not in out
    assert f"no longer matches what torch {claims.release()} prints, though every claim holds" in err
    assert f"nox -s \"drift(torch='{claims.release()}')\"" in err


def test_check_calls_a_record_lacking_a_claim_stale(tmp_path, committed, capsys):
    """The release CI checks must know every claim: one it lacks would show as "not measured"."""
    lacking = copy.deepcopy(committed[claims.release()])
    newest = sorted(lacking["claims"])[0]
    del lacking["claims"][newest]
    (tmp_path / f"torch-{claims.release()}.json").write_text(json.dumps(lacking))
    assert in_process("check", "--records", tmp_path) == 3
    out, err = capsys.readouterr()
    assert f"lacks 1 claim(s): {newest}" in out and "re-record it" in err


def test_check_exits_1_naming_a_claim_that_no_longer_holds(monkeypatch, capsys):
    from phase25 import __main__ as command

    claims.claim("made-up-broken-in-check", "a claim made up for a test")(lambda: (False, "it did not hold"))
    try:
        status = command.main(["check", "--records", "records"])
    finally:
        del claims.CLAIMS["made-up-broken-in-check"]
    assert status == 1
    assert "claim made-up-broken-in-check no longer holds on torch " in capsys.readouterr().err


def test_check_passes_against_the_committed_records_and_saves_what_it_measured(tmp_path, capsys):
    saved = tmp_path / "claims" / "live.json"
    assert in_process("check", "--save", saved) == 0
    assert f"matches torch {claims.release()}" in capsys.readouterr().out
    live = record.load(saved)
    assert record.differences(record.committed()[claims.release()], live) == []
    assert set(record.outcomes(live)) == set(claims.CLAIMS)


def test_a_claim_only_recorded_per_release_does_not_fail_the_check(tmp_path, committed, capsys):
    """The diagnose-api:* claims say where `minigpt diagnose` works; one that does not hold on a
    release is recorded there (✗), not a broken book."""
    recorded = copy.deepcopy(committed[claims.release()])
    recorded["claims"]["made-up-recorded"] = {"holds": False}
    (tmp_path / f"torch-{claims.release()}.json").write_text(json.dumps(recorded))
    claims.claim("made-up-recorded", "a recorded claim made up for a test", required=False)(
        lambda: (False, "not on this release")
    )
    try:
        assert in_process("check", "--records", tmp_path) == 0
    finally:
        del claims.CLAIMS["made-up-recorded"]
    assert "  no      made-up-recorded" in capsys.readouterr().out
    assert all(not claims.CLAIMS[name].required for name in claims.CLAIMS if name.startswith("diagnose"))


def test_the_build_notes_a_stale_record_through_the_report_hook(tmp_path, monkeypatch):
    """execbook calls [tool.book.hooks] report after a build that executed pages; the lesson's says
    which record to re-record when the compatibility page found it stale, and nothing otherwise."""
    from execbook import config
    from phase25 import report

    assert config.hook("report") is report.stale_record_note
    monkeypatch.setattr(report, "STORE", tmp_path)
    assert report.stale_record_note() == []
    live = {"release": "2.13.0", "stale": {"release": "2.13.0", "what": ["message.hint_off"]}}
    (tmp_path / "live-record.json").write_text(json.dumps(live))
    (note,) = report.stale_record_note()
    assert "records/torch-2.13.0.json is stale (message.hint_off changed" in note
    assert "nox -s \"drift(torch='2.13.0')\"" in note
    live["stale"] = {"release": "2.13.0", "what": [], "unmeasured": ["safe:new_case"]}
    (tmp_path / "live-record.json").write_text(json.dumps(live))
    (note,) = report.stale_record_note()  # a new safe case: its claim, not what torch prints
    assert "records/torch-2.13.0.json has not measured claim(s) safe:new_case" in note
    assert "nox -s \"drift(torch='2.13.0')\" and commit it" in note
