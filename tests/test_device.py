"""device=cpu|cuda: the mini-GPT on a GPU, and the lesson's claims recorded there
(`python -m phase25 record --device cuda`, which gpu/lesson_cuda.sh runs on a GPU machine)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from minigpt import cli
from phase25 import claims, record

REPO = Path(__file__).resolve().parents[1]
no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="checks what happens where CUDA is missing")
HEAVY = {
    "sphinx",
    "myst_nb",
    "myst_parser",
    "nbformat",
    "nbclient",
    "IPython",
    "jupyter_cache",
    "docutils",
    "matplotlib",
}  # none of them is on the GPU machine gpu/lesson_cuda.sh runs on


def run(*args, cwd=REPO):
    return subprocess.run(
        [sys.executable, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )


@no_gpu
def test_device_cuda_without_a_gpu_is_one_error_line(tmp_path, capsys):
    assert cli.main(["train", "device=cuda", "steps=1", f"out={tmp_path / 'run'}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("minigpt: error: device=cuda needs an NVIDIA GPU")
    assert "use device=cpu" in err and not (tmp_path / "run").exists()


def test_device_is_cpu_or_cuda(capsys):
    assert cli.main(["diagnose", "device=tpu"]) == 2
    assert "bad value device='tpu': must be one of cpu, cuda" in capsys.readouterr().err


@no_gpu
def test_drift_record_on_cuda_without_a_gpu_is_one_error_line_and_writes_nothing(tmp_path):
    done = run("-m", "phase25", "record", "--device", "cuda", "--out", tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("phase25: error: device=cuda needs an NVIDIA GPU")
    assert done.stderr.count("\n") == 1 and not list(tmp_path.iterdir())


def test_drift_record_device_is_cpu_or_cuda(tmp_path):
    done = run("-m", "phase25", "record", "--device", "tpu", "--out", tmp_path)
    assert done.returncode == 2 and "--device tpu: must be one of cpu, cuda" in done.stderr


def test_the_gpu_scripts_python_side_runs_on_the_cpu_without_sphinx_or_jupyter(tmp_path):
    """What `python -m phase25 record --device cuda` runs, faked on the CPU (the same claims, the same
    record, written as a device record): no Sphinx, MyST or Jupyter module is imported on the way."""
    script = f"""
import json, sys
from phase25 import __main__ as command, claims, record
new, outcomes = command.measured(claims.on_device(), compile=False)
path = record.write(dict(new, device="cuda", gpu="a fake GPU"), sys.argv[1])
heavy = sorted({{m.split(".")[0] for m in sys.modules}} & set({sorted(HEAVY)!r}))
print(json.dumps({{"path": str(path), "heavy": heavy,
                  "failing": [o.name for o in outcomes.values() if not o.holds]}}))
"""
    done = run("-c", script, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["heavy"] == [] and seen["failing"] == []
    assert Path(seen["path"]).name == f"torch-{claims.release()}-cuda.json"
    written = record.device_records("cuda", tmp_path)[claims.release()]
    assert set(written["claims"]) == set(claims.on_device()) and "compile" not in written
    assert record.committed(tmp_path) == {}, "a device record is not a release's record"


def test_the_claims_measured_on_a_device_run_the_mini_gpt_and_are_required():
    names = claims.on_device()
    assert {
        "message-type-names-the-device",
        "save-on-cpu-copies-only-from-the-gpu",
        "autocast-exp-inplace",
        "b-raises-without-anomaly",
        "exp-inplace-safe",
    } <= set(names)
    assert all(claims.CLAIMS[n].required for n in names)
    assert not any(n.startswith(("compile:", "safe:", "unsafe:", "diagnose")) for n in names)


def test_the_committed_cuda_record_names_its_gpu_and_every_device_claim_held_there():
    cuda = record.device_records("cuda")
    assert cuda, "records/ holds the CUDA record the compatibility page cites (gpu/lesson_cuda.sh makes it)"
    for release, found in cuda.items():
        assert found["device"] == "cuda" and found["gpu"] and "+cu" in found["torch"]
        assert record.is_device_record(record.path_for(release, device="cuda"))
        assert all(found["claims"][n]["holds"] for n in claims.on_device() if n in found["claims"])
        assert all("seen" in c for c in found["claims"].values()), "a device record keeps what every claim saw"
        assert found["message"]["tensor"] == "[torch.cuda.FloatTensor [batch, tokens, n_embd]]"
    assert not any(r.get("device") for r in record.committed().values()), "the releases' records are the CPU's"


def test_gpu_lesson_script_is_an_executable_bash_script_that_writes_into_out():
    script = REPO / "gpu" / "lesson_cuda.sh"
    text = script.read_text()
    assert os.access(script, os.X_OK) and text.startswith("#!/usr/bin/env bash")
    assert 'python3 -m phase25 record --device cuda --out "$OUT/records"' in text
    done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
