"""The command line and the justfile reproducer, run as a reader runs them, in a fresh cwd."""

import io
import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields
from pathlib import Path

import pytest

from minigpt import cli, words
from minigpt.experiment import CONFIG, RESULT, ExperimentError, find_run, write_run
from minigpt.model import GPTConfig
from minigpt.train import TrainConfig

INPLACE_ERROR = re.compile(r"RuntimeError: .*modified by an inplace operation")
VERSIONS = re.compile(r"is at version \d+; expected version \d+ instead")
ANOMALY_WARNING = re.compile(r"UserWarning: Error detected in NativeLayerNormBackward")
FORWARD_TRACEBACK = "Traceback of forward call"
PROGRESS = re.compile(r"^step \d+/\d+, loss", re.MULTILINE)


def with_notes(cwd):
    """A directory that is not an experiment: it holds a file of the reader's."""
    (cwd / "notes").mkdir()
    (cwd / "notes" / "todo.txt").write_text("read chapter 25\n")


def with_file(cwd):
    """A file where an experiment directory might be asked for."""
    (cwd / "notes.txt").write_text("read chapter 25\n")


def with_experiments_file(cwd):
    """A file named like the default parent of out=."""
    (cwd / "experiments").write_text("not a directory\n")


# name: (arguments, set-up of the cwd, what the error line must name: the offending input or the fix)
ERROR_CASES = {
    "no-arguments": ([], None, "usage"),
    "unknown-command": (["fit"], None, "'fit'"),
    "unknown-key": (["train", "colour=red"], None, "'colour'"),
    "duplicate-key": (["train", "steps=5", "steps=6"], None, "'steps' given twice"),
    "inplace-maybe": (["train", "inplace=maybe"], None, "inplace='maybe'"),
    "steps-negative": (["train", "steps=-3"], None, "steps='-3'"),
    "steps-zero": (["train", "steps=0"], None, "steps='0': must be between 1 and 100000"),
    "steps-absurd": (["train", "steps=1000000000"], None, "steps='1000000000': must be between 1 and 100000"),
    "steps-not-a-number": (["train", "steps=abc"], None, "steps='abc'"),
    "steps-not-whole": (["train", "steps=1e3"], None, "steps='1e3': expected a whole number"),
    "steps-empty": (["train", "steps="], None, "steps=''"),
    "seed-negative": (["train", "seed=-1"], None, "seed='-1': must be between 0 and"),
    "bypass-without-inplace": (["train", "bypass=hooks"], None, "inplace=true"),
    "bypass-unknown": (["train", "inplace=true", "bypass=magic"], None, "bypass='magic'"),
    "train-positional": (["train", "quickly"], None, "'quickly'"),
    "out-empty": (["train", "out="], None, "out=''"),
    "out-with-foreign-files": (["train", "steps=1", "out=notes"], with_notes, "out=notes"),
    "out-is-a-file": (["train", "steps=1", "out=notes.txt"], with_file, "out=notes.txt is a file"),
    "out-under-a-file": (
        ["train", "steps=1", "out=notes.txt/exp"],
        with_file,
        "out=notes.txt/exp lies under notes.txt, which is a file",
    ),
    "default-out-under-a-file": (["train", "steps=1"], with_experiments_file, "under experiments, which is a file"),
    "compare-missing-directory": (["grad-compare", "experiments/25-A", "experiments/25-B"], None, "experiments/25-A"),
    "compare-not-an-experiment": (["grad-compare", "notes", "notes"], with_notes, "notes"),
    "compare-a-file": (["grad-compare", "notes.txt", "notes.txt"], with_file, "notes.txt is a file"),
    "compare-one-argument": (["grad-compare", "experiments/25-A"], None, "two"),
    "compare-bad-step": (["grad-compare", "a", "b", "step=2"], None, "step='2'"),
    "compare-unknown-key": (["grad-compare", "a", "b", "steps=2"], None, "'steps'"),
    "diagnose-unknown-key": (["diagnose", "steps=2"], None, "'steps' for diagnose"),
    "diagnose-positional": (["diagnose", "now"], None, "'now'"),
    "diagnose-bypass-without-inplace": (["diagnose", "bypass=hooks"], None, "inplace=true"),
    "diagnose-bypass-unknown": (["diagnose", "inplace=true", "bypass=magic"], None, "bypass='magic'"),
}

# Each subprocess costs a torch import (~2 s of CPU); the rest run in-process only.
# Every case also runs in-process (test_main_in_process_agrees); these few prove the real entry
# point behaves the same: a usage error, a bad value, a bad output path, a bad experiment folder.
SUBPROCESS_CASES = ["unknown-command", "steps-absurd", "out-under-a-file", "compare-not-an-experiment"]


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
        proc = subprocess.run(
            [*minigpt_command, *args], cwd=cwd, env=tool_env, capture_output=True, text=True, timeout=subprocess_timeout
        )
        return proc, before, snapshot(cwd)

    with ThreadPoolExecutor(max_workers=2 * (os.cpu_count() or 1)) as pool:
        return dict(zip(SUBPROCESS_CASES, pool.map(run, SUBPROCESS_CASES), strict=True))


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


def test_train_and_diagnose_reject_a_bad_bypass_identically(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for switches in (["inplace=true", "bypass=magic"], ["bypass=hooks"]):
        errors = []
        for command in ("train", "diagnose"):
            assert cli.main([command, *switches]) == 2
            errors.append(capsys.readouterr().err)
        assert errors[0] == errors[1], switches


UNWRITABLE = Path("/sys/minigpt-test")  # sysfs refuses new folders, to root as well


@pytest.mark.skipif(not Path("/sys").is_dir(), reason="needs Linux's /sys")
def test_unwritable_out_is_refused_before_training(tmp_path, monkeypatch, capsys, snapshot):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["train", "steps=1", f"out={UNWRITABLE}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"minigpt: error: out={UNWRITABLE} cannot be written")
    assert not UNWRITABLE.exists() and snapshot(tmp_path) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_out_in_a_read_only_directory_is_refused_before_training(tmp_path, monkeypatch, capsys, snapshot):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked").chmod(0o555)
    try:
        assert cli.main(["train", "steps=1", "out=locked/exp"]) == 2
        assert snapshot(tmp_path) == ["locked"]
    finally:
        (tmp_path / "locked").chmod(0o755)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("minigpt: error: out=locked/exp cannot be written")


def test_ctrl_c_during_training_is_one_line_and_stores_nothing(tmp_path, monkeypatch, capsys, snapshot):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "train", interrupted)
    assert cli.main(["train", "steps=5", "out=exp"]) == 130
    assert capsys.readouterr().err == "minigpt: interrupted\n"
    assert snapshot(tmp_path) == []


# One declaration of the keys --------------------------------------------------------------------


def test_keys_are_the_documented_fields_of_the_config_dataclasses():
    switches = ["inplace", "bypass", "clone", "relu_inplace", "exp_inplace", "device"]
    assert list(cli.TRAIN_KEYS) == [*switches, "steps", "seed", "detect_anomaly", "out"]
    assert list(cli.DIAGNOSE_KEYS) == [*switches, "seed"]
    assert list(cli.COMPARE_KEYS) == ["step"]
    declared = {f.name: f for f in (*fields(GPTConfig), *fields(TrainConfig))}
    for name, key in cli.TRAIN_KEYS.items():
        assert name == "out" or key.field is declared[name], name  # the field itself, not a copy
    assert "n_embd" not in cli.TRAIN_KEYS  # sizes stay fixed: not keys


def test_the_library_enforces_the_limits_the_cli_reports(capsys):
    """One check for both: the library's message is the CLI's, less the raw text of the value."""
    with pytest.raises(ValueError) as raised:
        GPTConfig(inplace=True, bypass="magic")
    assert str(raised.value) == "bypass must be one of none, hooks, data, ctx, not 'magic'"
    assert cli.main(["diagnose", "inplace=true", "bypass=magic"]) == 2
    assert capsys.readouterr().err.endswith("bypass='magic': must be one of none, hooks, data, ctx\n")


def test_help_lists_every_key_with_its_help_values_and_default(capsys):
    assert cli.main(["help"]) == 0
    out = capsys.readouterr().out
    for keys in (cli.TRAIN_KEYS, cli.COMPARE_KEYS, cli.DIAGNOSE_KEYS):
        for name, key in keys.items():
            line = re.search(rf"^  {name}\s+(.*)$", out, re.MULTILINE)
            assert line and key.field.metadata["help"] in line[1], name
            if key.field.default is not None:
                assert f"default {str(key.field.default).lower()}" in line[1], name
    assert re.search(r"^  steps\s.*between 1 and 100000; default 150$", out, re.MULTILINE)
    assert re.search(r"^  bypass\s.*one of none, hooks, data, ctx; default none$", out, re.MULTILINE)
    assert re.search(r"^  inplace\s.*true or false; default false$", out, re.MULTILINE)


# Progress ---------------------------------------------------------------------------------------


class FakeClock:
    """Each reading is tick_s later than the one before, starting at 0."""

    def __init__(self, tick_s):
        self.now, self.tick_s = -tick_s, tick_s

    def __call__(self):
        self.now += self.tick_s
        return self.now


def progress_lines(tick_s, steps):
    stream = io.StringIO()
    progress = cli.ProgressLines(stream, every_s=2.0, clock=FakeClock(tick_s))
    for step in range(1, steps + 1):
        progress(step, steps, 1.0 / step)
    return stream.getvalue().splitlines()


def test_progress_is_one_short_line_per_interval_and_none_for_the_last_step():
    assert progress_lines(tick_s=0.5, steps=12) == ["step 4/12, loss 0.2500, 2 s", "step 8/12, loss 0.1250, 4 s"]


def test_no_progress_for_a_run_shorter_than_the_interval():
    assert progress_lines(tick_s=0.1, steps=19) == []


def test_progress_only_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert cli.progress_for(io.StringIO()) is None
    assert isinstance(cli.progress_for(Terminal()), cli.ProgressLines)


def test_train_on_a_terminal_shows_progress_on_stderr_only(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli.sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr(cli, "PROGRESS_EVERY_S", 0.0)  # a line for every step but the last
    assert cli.main(["train", "steps=3", "out=exp"]) == 0
    out, err = capsys.readouterr()
    assert re.fullmatch(r"step 1/3, loss \d+\.\d{4}, \d+ s\nstep 2/3, loss \d+\.\d{4}, \d+ s\n", err), err
    assert "trained 3 steps" in out and "step 1/3" not in out


def test_train_says_how_long_it_took_on_a_terminal_only(tmp_path, monkeypatch, capsys):
    """Captured output (the break page's reproducer) must not depend on the machine's speed."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["train", "steps=2", "out=exp"]) == 0
    captured = capsys.readouterr().out
    assert re.search(r"^trained 2 steps; final loss", captured, re.M) and "steps/s" not in captured
    monkeypatch.setattr(cli.sys.stdout, "isatty", lambda: True)
    assert cli.main(["train", "steps=2", "out=exp"]) == 0
    assert re.search(r"^trained 2 steps in \d+\.\d\d s \(\d+\.\d steps/s\); final loss", capsys.readouterr().out)


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
def reproducer(tmp_path_factory, repo, tool_env, snapshot, subprocess_timeout, made_once):
    made_once("reproducer")
    just = shutil.which("just", path=tool_env["PATH"])
    assert just, "`just` is not installed: install the test extras (pip install -e .[test])"
    cwd = tmp_path_factory.mktemp("reproducer")
    shutil.copy(repo / "justfile", cwd / "justfile")
    results = {}
    for name, args in REPRODUCER:
        before = set(snapshot(cwd))
        proc = subprocess.run(
            [just, *args], cwd=cwd, env=tool_env, capture_output=True, text=True, timeout=subprocess_timeout
        )
        results[name] = proc, sorted(set(snapshot(cwd)) - before)
    results["cwd"] = cwd
    return results


def test_just_train_a_succeeds(reproducer):
    proc, created = reproducer["train-A"]
    assert proc.returncode == 0, proc.stderr
    assert "trained 5 steps" in proc.stdout
    assert not PROGRESS.search(proc.stderr)  # no progress when stderr is not a terminal
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
    assert not PROGRESS.search(proc.stdout + proc.stderr)  # seconds long, but not on a terminal
    assert re.search(r"^parameter\s+\|grad A\|\s+\|grad B\|\s+rel\. error", proc.stdout, re.MULTILINE)
    rows = re.findall(r"^(blocks\.\d+\.\S+|tok_emb\.weight|head\.weight)\s+\d", proc.stdout, re.MULTILINE)
    assert "head.weight" in rows and "blocks.0.ln1.weight" in rows
    assert "experiments/25-B-hooks/run-1/result.json" in created
    figures = [p for p in created if p.endswith(".png")]
    assert len(figures) == 1 and figures[0] in proc.stdout
    png = (reproducer["cwd"] / figures[0]).read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000


# minigpt in the terminal's language ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({"LANG": "es_ES.UTF-8"}, "es"),
        ({"LANGUAGE": "es:en", "LANG": "en_US.UTF-8"}, "es"),  # gettext's order: LANGUAGE first
        ({"LC_ALL": "C.UTF-8", "LANG": "es_ES.UTF-8"}, "c."),  # LC_ALL before LANG: no table, English
        ({}, "en"),
    ],
)
def test_the_language_is_the_one_gettext_would_pick(monkeypatch, variables, expected):
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert words.language() == expected


def test_spanish_numbers_have_a_decimal_comma_and_a_spaced_percent(monkeypatch):
    monkeypatch.setattr(words, "current", "es")
    said = words.say(
        "trained {steps} steps{took}; final loss {loss:.4f}; test accuracy {accuracy:.2%}, exact rewrites {exact:.2%}",
        steps=150,
        took="",
        loss=0.01244,
        accuracy=1.0,
        exact=0.5,
    )
    assert (
        said == "150 pasos de entrenamiento; pérdida final 0,0124; exactitud de prueba 100,00\u00a0%, "
        "reescrituras exactas 50,00\u00a0%"
    )
    assert words.say("figure: {path}", path=Path("a.b/c.png")) == "figura: a.b/c.png"  # a path keeps its dots
    monkeypatch.setattr(words, "current", "fr")
    assert words.say("nothing to compare") == "nothing to compare"


def test_every_spanish_text_has_the_english_fields():
    for english, spanish in words.SPANISH.items():
        assert re.findall(r"\{(\w+)", english) == re.findall(r"\{(\w+)", spanish), english


def test_grad_compare_speaks_spanish_in_a_spanish_terminal_and_english_after(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LANGUAGE", "es")
    assert cli.main(["grad-compare", "a", "b", "step=7"]) == 2  # a usage error stays English
    assert "must be one of 0, final" in capsys.readouterr().err
    write_run("a", {"model": {}, "train": {}}, {"failure": {"step": 0, "error": "RuntimeError: x"}}, {})
    write_run("b", {"model": {}, "train": {"seed": 1}}, {}, {})
    assert cli.main(["grad-compare", "a", "b"]) == 0
    out = capsys.readouterr().out
    assert "gradientes del lote de sondeo en el paso 0" in out and "nada que comparar" in out
    assert "a/run-1 no tiene gradientes: su pasada hacia atrás lanzó un error en el paso 0." in out
    assert "nota: train.seed difiere (None frente a 1)" in out
    assert words.current == "en"
