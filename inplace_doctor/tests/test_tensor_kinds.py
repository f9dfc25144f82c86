"""Every tensor kind PyTorch has, under the diagnoser (inplace_doctor/tests/tensor_kinds/): nested, meta, a wrapper
subclass, DTensor on the CPU, and the places whose saved tensors are kept by someone else
(allow_mutation_on_saved_tensors, selective activation checkpointing). Each is diagnosed (a finding
at its WRITE line) or said not examined, never an internal error; and the program raises, prints
and computes what it does without the diagnoser."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # each kind runs as two processes of its own, plain and diagnosed (seconds each)

KINDS = Path(__file__).parent / "tensor_kinds"
CASES = sorted(p.stem for p in KINDS.glob("*.py"))


def run(command: list[str], cwd: Path, env: dict, timeout: int) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("name", CASES)
def test_each_kind_is_diagnosed_or_said_not_examined(name, tmp_path, tool_env, subprocess_timeout):
    if name.startswith("dtensor"):
        pytest.importorskip("torch.distributed.tensor")
    source = (KINDS / f"{name}.py").read_text(encoding="utf-8")
    (tmp_path / "program.py").write_text(source, encoding="utf-8")
    write = next(n for n, line in enumerate(source.splitlines(), 1) if line.endswith("# WRITE"))
    plain = run([sys.executable, "program.py", str(tmp_path / "store1")], tmp_path, tool_env, subprocess_timeout)
    done = run(
        [sys.executable, "-m", "inplace_doctor", "--steps", "all", "program.py", str(tmp_path / "store2")],
        tmp_path,
        tool_env,
        subprocess_timeout,
    )
    out = done.stdout + done.stderr
    assert "internal error" not in out and "Traceback" not in done.stdout, out
    assert f"written at: program.py:{write}:" in out or "not examined: " in out, out
    printed = [line for line in done.stdout.splitlines() if line in plain.stdout.splitlines()]
    assert printed == [line for line in plain.stdout.splitlines() if line], (plain.stdout, done.stdout)
    assert done.returncode in (0, 1), out  # the command's status: 1 where PyTorch raised its in-place error
    if plain.returncode and "is at version" not in plain.stderr:  # the program's own error, kept
        assert plain.stderr.strip().splitlines()[-1] in done.stderr, (plain.stderr, done.stderr)
