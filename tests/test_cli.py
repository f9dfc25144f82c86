"""The command line and the justfile reproducer, run as a reader runs them, in a fresh cwd."""

import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from minigpt import cli
from minigpt.experiment import CONFIG, RESULT, ExperimentError, find_run, write_run

INPLACE_ERROR = re.compile(r"RuntimeError: .*modified by an inplace operation")
VERSIONS = re.compile(r"is at version \d+; expected version \d+ instead")
ANOMALY_WARNING = re.compile(r"UserWarning: Error detected in NativeLayerNormBackward")
FORWARD_TRACEBACK = "Traceback of forward call"


def with_notes(cwd):
    """A directory that is not an experiment: it holds a file of the reader's."""
    (cwd / "notes").mkdir()
    (cwd / "notes" / "todo.txt").write_text("read chapter 25\n")


# name: (arguments, set-up of the cwd, what the error line must name: the offending input or the fix)
ERROR_CASES = {
    "no-arguments": ([], None, "usage"),
    "unknown-command": (["fit"], None, "'fit'"),
    "unknown-key": (["train", "colour=red"], None, "'colour'"),
    "inplace-maybe": (["train", "inplace=maybe"], None, "inplace='maybe'"),
    "steps-negative": (["train", "steps=-3"], None, "steps='-3'"),
    "steps-not-a-number": (["train", "steps=abc"], None, "steps='abc'"),
    "bypass-without-inplace": (["train", "bypass=hooks"], None, "inplace=true"),
    "bypass-unknown": (["train", "inplace=true", "bypass=magic"], None, "bypass='magic'"),
    "train-positional": (["train", "quickly"], None, "'quickly'"),
    "out-with-foreign-files": (["train", "steps=1", "out=notes"], with_notes, "out=notes"),
    "compare-missing-directory": (["grad-compare", "experiments/25-A", "experiments/25-B"], None,
                                  "experiments/25-A"),
    "compare-not-an-experiment": (["grad-compare", "notes", "notes"], with_notes, "notes"),
    "compare-one-argument": (["grad-compare", "experiments/25-A"], None, "two"),
    "compare-bad-step": (["grad-compare", "a", "b", "step=2"], None, "step='2'"),
}

# Each subprocess costs a torch import (~2 s of CPU); the rest run in-process only.
SUBPROCESS_CASES = ["unknown-command", "unknown-key", "inplace-maybe", "steps-negative", "steps-not-a-number",
                    "bypass-without-inplace", "out-with-foreign-files", "compare-missing-directory",
                    "compare-not-an-experiment", "compare-one-argument"]


@pytest.fixture(scope="module")
def error_runs(tmp_path_factory, minigpt_command, tool_env, snapshot, subprocess_timeout):
    """Each SUBPROCESS_CASES case as `python -m minigpt` in its own fresh cwd, run concurrently."""

    # Made here, one by one: tmp_path_factory is not thread-safe (concurrent first calls race
    # to create the base temporary directory).
    cwds = {name: tmp_path_factory.mktemp(name) for name in SUBPROCESS_CASES}

    def run(name):
        args, setup, _ = ERROR_CASES[name]
        cwd = cwds[name]
        if setup:
            setup(cwd)
        before = snapshot(cwd)
        proc = subprocess.run([*minigpt_command, *args], cwd=cwd, env=tool_env, capture_output=True,
                              text=True, timeout=subprocess_timeout)
        return proc, before, snapshot(cwd)

    with ThreadPoolExecutor(max_workers=2 * (os.cpu_count() or 1)) as pool:
        return dict(zip(SUBPROCESS_CASES, pool.map(run, SUBPROCESS_CASES)))


@pytest.mark.parametrize("name", SUBPROCESS_CASES)
def test_bad_input_is_one_error_line_and_writes_nothing(error_runs, name):
    proc, before, after = error_runs[name]
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("minigpt: error: ")
    assert ERROR_CASES[name][2] in lines[0]
    assert "Traceback" not in proc.stderr + proc.stdout
    assert after == before


@pytest.mark.parametrize("name", ERROR_CASES)
def test_main_in_process_agrees(tmp_path, monkeypatch, capsys, snapshot, name):
    args, setup, expected = ERROR_CASES[name]
    monkeypatch.chdir(tmp_path)
    if setup:
        setup(tmp_path)
    before = snapshot(tmp_path)
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("minigpt: error: ") and expected in err
    assert snapshot(tmp_path) == before


def test_help_lists_every_key(capsys):
    assert cli.main(["help"]) == 0
    out = capsys.readouterr().out
    for key in [*cli.TRAIN_KEYS, *cli.COMPARE_KEYS]:
        assert re.search(rf"^\s+{key}\s", out, re.MULTILINE), key


# Experiment directories ----------------------------------------------------------------------

def run_files(run):
    return {p.name: p.read_bytes() for p in sorted(run.iterdir())}


def test_rerun_into_the_same_out_keeps_the_earlier_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["train", "steps=1", "out=exp"]) == 0
    first = run_files(tmp_path / "exp" / "run-1")
    assert cli.main(["train", "steps=2", "seed=1", "out=exp"]) == 0
    assert sorted(p.name for p in (tmp_path / "exp").iterdir()) == ["run-1", "run-2"]
    assert run_files(tmp_path / "exp" / "run-1") == first
    assert find_run(tmp_path / "exp") == tmp_path / "exp" / "run-2"
    recorded = json.loads((tmp_path / "exp" / "run-2" / CONFIG).read_text())
    assert recorded["train"]["steps"] == 2 and recorded["train"]["seed"] == 1
    assert "recorded in exp/run-2" in capsys.readouterr().out


def test_out_with_foreign_files_is_refused_before_training(tmp_path, snapshot):
    with_notes(tmp_path)
    before = snapshot(tmp_path)
    with pytest.raises(ExperimentError, match="not minigpt runs"):
        write_run(tmp_path / "notes", {}, {}, {})
    assert snapshot(tmp_path) == before


def fake_run(path):
    path.mkdir(parents=True)
    (path / CONFIG).write_text("{}")
    (path / RESULT).write_text("{}")
    return path


def test_find_run_picks_the_newest_complete_run(tmp_path):
    for n in (2, 10, 9):
        fake_run(tmp_path / f"run-{n}")
    (tmp_path / "run-11").mkdir()  # incomplete: no result.json
    (tmp_path / "run-11" / CONFIG).write_text("{}")
    (tmp_path / ".run-12.partial").mkdir()  # an interrupted write
    assert find_run(tmp_path) == tmp_path / "run-10"  # numeric, not lexicographic
    assert find_run(tmp_path / "run-2") == tmp_path / "run-2"  # a run is itself
    with pytest.raises(ExperimentError, match="not a minigpt experiment"):
        find_run(tmp_path / "run-11")


def test_write_run_numbers_above_every_existing_run_folder(tmp_path):
    fake_run(tmp_path / "run-1")
    (tmp_path / "run-2").mkdir()  # incomplete
    (tmp_path / "run-2" / CONFIG).write_text("{}")
    (tmp_path / ".run-3.partial").mkdir()  # left behind by an interrupted write
    run = write_run(tmp_path, {"model": {}}, {"status": "completed"}, {})
    assert run == tmp_path / "run-3"
    assert json.loads((run / RESULT).read_text()) == {"status": "completed"}
    assert not (tmp_path / ".run-3.partial").exists()
    assert (tmp_path / "run-2" / CONFIG).read_text() == "{}"


# The reproducer through just --------------------------------------------------------------------

# (name, just arguments). steps= is added where the behaviour does not need the default 150.
REPRODUCER = [
    ("train-A", ["phase-25-train", "inplace=false", "steps=5"]),
    ("train-B-anomaly", ["phase-25-train", "inplace=true", "detect_anomaly=true"]),
    ("train-B-plain", ["phase-25-train", "inplace=true", "detect_anomaly=false"]),
    ("compare-A-B", ["phase-25-grad-compare", "experiments/25-A", "experiments/25-B"]),
    ("silent", ["phase-25-silent"]),
]


@pytest.fixture(scope="module")
def reproducer(tmp_path_factory, repo, tool_env, snapshot, subprocess_timeout):
    just = shutil.which("just", path=tool_env["PATH"])
    assert just, "`just` is not installed: install the test extras (pip install -e .[test])"
    cwd = tmp_path_factory.mktemp("reproducer")
    shutil.copy(repo / "justfile", cwd / "justfile")
    results = {}
    for name, args in REPRODUCER:
        before = set(snapshot(cwd))
        proc = subprocess.run([just, *args], cwd=cwd, env=tool_env, capture_output=True, text=True,
                              timeout=subprocess_timeout)
        results[name] = proc, sorted(set(snapshot(cwd)) - before)
    results["cwd"] = cwd
    return results


def test_just_train_a_succeeds(reproducer):
    proc, created = reproducer["train-A"]
    assert proc.returncode == 0, proc.stderr
    assert "trained 5 steps" in proc.stdout
    assert "experiments/25-A/run-1/result.json" in created
    result = json.loads((reproducer["cwd"] / "experiments/25-A/run-1" / RESULT).read_text())
    assert result["status"] == "completed"


def test_just_train_b_with_anomaly_raises_with_forward_traceback(reproducer):
    proc, created = reproducer["train-B-anomaly"]
    assert proc.returncode != 0
    assert INPLACE_ERROR.search(proc.stderr) and VERSIONS.search(proc.stderr)
    assert ANOMALY_WARNING.search(proc.stderr)
    assert FORWARD_TRACEBACK in proc.stderr
    assert re.search(r'model\.py", line \d+, in forward\n\s*h\.add_\(', proc.stderr)
    assert "Traceback (most recent call last)" not in proc.stderr  # reported, not crashed
    assert "experiments/25-B/run-1/result.json" in created


def test_just_train_b_without_anomaly_raises_without_traceback(reproducer):
    proc, created = reproducer["train-B-plain"]
    assert proc.returncode != 0
    assert INPLACE_ERROR.search(proc.stderr) and VERSIONS.search(proc.stderr)
    assert not ANOMALY_WARNING.search(proc.stderr)
    assert FORWARD_TRACEBACK not in proc.stderr and "Traceback" not in proc.stderr
    assert "experiments/25-B/run-2/result.json" in created  # the anomaly run is kept as run-1


def test_just_grad_compare_says_b_has_no_gradients(reproducer):
    proc, created = reproducer["compare-A-B"]
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"experiments/25-B/run-2 has no gradients\b.*\bbackward raised", proc.stdout), proc.stdout
    assert INPLACE_ERROR.search(proc.stdout)
    assert "nothing to compare" in proc.stdout
    assert not [p for p in created if p.endswith(".png")]


def test_just_silent_prints_a_table_and_writes_a_figure(reproducer):
    proc, created = reproducer["silent"]
    assert proc.returncode == 0, proc.stderr
    assert "trained 150 steps" in proc.stdout  # phase-25-silent passes no steps=: the default
    assert re.search(r"^parameter\s+\|grad A\|\s+\|grad B\|\s+rel\. error", proc.stdout, re.MULTILINE)
    rows = re.findall(r"^(blocks\.\d+\.\S+|tok_emb\.weight|head\.weight)\s+\d", proc.stdout, re.MULTILINE)
    assert "head.weight" in rows and "blocks.0.ln1.weight" in rows
    assert "experiments/25-B-hooks/run-1/result.json" in created
    figures = [p for p in created if p.endswith(".png")]
    assert len(figures) == 1 and figures[0] in proc.stdout
    png = (reproducer["cwd"] / figures[0]).read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000
