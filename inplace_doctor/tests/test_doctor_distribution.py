"""The diagnoser's own distribution, inplace-doctor (inplace_doctor/pyproject.toml): its README's
example prints what the README shows; its wheel and sdist build and pass `twine check`; the wheel
holds the diagnoser and nothing of the book, the lesson or the model; installed into a fresh
virtual environment with torch alone, its command finds a bug in a script."""

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import inplace_doctor

DOCTOR = Path(__file__).resolve().parent.parent  # the distribution's folder: this one's parent
README = (DOCTOR / "README.md").read_text(encoding="utf-8")


def readme_example() -> tuple[str, str]:
    """(the example's script, the output README shows for it)."""
    section = README.split("## An example", 1)[1].split("\n## ", 1)[0]
    script = re.search(r"```python\n(.*?)```", section, re.S)
    output = re.search(r"```text\n(.*?)```", section, re.S)
    assert script and output, "README's example has no script or no output"
    return script.group(1), output.group(1)


def test_the_readme_example_prints_what_the_readme_shows(tmp_path):
    script, shown = readme_example()
    (tmp_path / "train.py").write_text(script, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "inplace_doctor", "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1 and "exit status 1" in README.split("## An example", 1)[1]
    # PyTorch's message names the node as the installed release does (2.12: SigmoidBackward0; 2.13: Sigmoid)
    assert any_node_name(done.stdout) == any_node_name(shown), done.stdout + done.stderr


def any_node_name(report: str) -> str:
    return re.sub(r"which is output (\d+) of \w+,", r"which is output \1 of NODE,", report)


def test_its_version_and_dependencies():
    project = tomllib.loads((DOCTOR / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "inplace-doctor" and project["dependencies"] == ["torch>=2.10"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", inplace_doctor.__version__)


BUGGY = """\
import torch

w = torch.randn(4, requires_grad=True)
h = torch.exp(w)
h.add_(1)
h.sum().backward()
"""


@pytest.mark.e2e
def test_the_wheel_builds_checks_and_runs_with_torch_alone(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(DOCTOR, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    dist = tmp_path / "dist"
    # no isolation: the build backend is the test environment's setuptools (nothing downloads)
    run = dict(capture_output=True, text=True, timeout=600)
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, source], **run)
    assert built.returncode == 0, built.stdout + built.stderr
    version = inplace_doctor.__version__
    wheel = dist / f"inplace_doctor-{version}-py3-none-any.whl"
    sdist = dist / f"inplace_doctor-{version}.tar.gz"
    assert wheel.is_file() and sdist.is_file(), sorted(p.name for p in dist.iterdir())
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", wheel, sdist], **run)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    names = zipfile.ZipFile(wheel).namelist()
    modules = sorted(p.name for p in (DOCTOR / "src" / "inplace_doctor").glob("*.py"))
    assert sorted(n.split("/", 1)[1] for n in names if n.startswith("inplace_doctor/")) == modules
    others = [n for n in names if not n.startswith(("inplace_doctor/", f"inplace_doctor-{version}.dist-info/"))]
    assert others == [], others  # nothing of the book, the lesson or the model
    metadata = zipfile.ZipFile(wheel).read(f"inplace_doctor-{version}.dist-info/METADATA").decode()
    assert re.findall(r"^Requires-Dist: (.*)$", metadata, re.M) == ["torch>=2.10"]

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=300)  # no system site-packages
    python = shutil.which("python", path=venv / "bin")  # the fresh environment's interpreter
    assert python is not None
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "torch==2.13.0", wheel], **dict(run, timeout=900)
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    (tmp_path / "train.py").write_text(BUGGY, encoding="utf-8")
    command = subprocess.run([python, "-m", "inplace_doctor", "train.py"], cwd=tmp_path, **run)
    assert command.returncode == 1, command.stdout + command.stderr
    assert "  written at: train.py:5: h.add_(1)" in command.stdout, command.stdout
    alone = subprocess.run(
        [
            python,
            "-c",
            "import importlib.util as u; print([m for m in ('minigpt', 'numpy', 'matplotlib', "
            "'phase25', 'execbook', 'tapegrad') if u.find_spec(m)])",
        ],
        cwd=tmp_path,
        **run,
    )
    assert alone.stdout.strip() == "[]", alone.stdout + alone.stderr
