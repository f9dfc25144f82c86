"""The on-disk format of an experiment: ``DIR/run-N/`` folders, never overwritten (each ``minigpt train
out=DIR`` adds the next); readers take the newest run of a directory, or the run folder they are given."""

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

CONFIG = "config.json"
RESULT = "result.json"
TENSORS = "probe.pt"
RUN_NAME = re.compile(r"run-(\d+)$")
STAGING_NAME = re.compile(r"\.run-\d+\.partial$")  # left behind if a write was interrupted


class ExperimentError(ValueError):
    """A path that cannot be used as an experiment; the message says what to do instead."""


def is_run(path: str | Path) -> bool:
    return (Path(path) / CONFIG).is_file() and (Path(path) / RESULT).is_file()


def check_writable(experiment_dir: str | Path) -> None:
    """Raise ExperimentError unless a new run can be added under experiment_dir (writes nothing)."""
    path = Path(experiment_dir)
    if not path.exists():  # a new directory: its nearest existing parent must take one
        existing = next(p for p in path.parents if p.exists())
        if not existing.is_dir():
            raise ExperimentError(
                f"out={path} lies under {existing}, which is a file, not a directory; choose another out="
            )
        check_can_create_in(existing, path)
        return
    if not path.is_dir():
        raise ExperimentError(f"out={path} is a file, not a directory; choose another out=")
    if is_run(path):
        raise ExperimentError(f"out={path} is a single run; pass its experiment directory {path.parent}")
    foreign = [p.name for p in path.iterdir() if not (RUN_NAME.match(p.name) or STAGING_NAME.match(p.name))]
    if foreign:
        raise ExperimentError(
            f"out={path} holds files that are not minigpt runs ({foreign[0]}, ...); "
            "choose an empty or new directory for out="
        )
    check_can_create_in(path, path)


def check_can_create_in(directory: Path, path: Path) -> None:
    # Trying is the only reliable test: permission bits say nothing for root, ACLs, read-only mounts.
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".minigpt-probe-", dir=directory))
    except OSError as exc:
        raise ExperimentError(
            f"out={path} cannot be written: {directory} refuses new folders ({exc.strerror}); choose another out="
        ) from None


def write_run(
    experiment_dir: str | Path, config: dict[str, Any], result: dict[str, Any], tensors: dict[str, Any]
) -> Path:
    """Store one run as the next run-N of experiment_dir and return its path."""
    path = Path(experiment_dir)
    check_writable(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        taken = [int(m.group(1)) for p in path.iterdir() if (m := RUN_NAME.match(p.name))]
        final = path / f"run-{max(taken, default=0) + 1}"  # above incomplete run-N folders too
        staging = path / f".{final.name}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        (staging / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
        (staging / RESULT).write_text(json.dumps(result, indent=2) + "\n")
        import torch  # here, not at the top: the book's Sphinx process imports this module

        torch.save(tensors, staging / TENSORS)
        os.rename(staging, final)  # refuses to replace an existing run-N
    except OSError as exc:  # the disk filled up, or the directory changed since check_writable
        raise ExperimentError(f"could not store the run in {path}: {exc.strerror or exc}") from None
    return final


def find_run(path: str | Path) -> Path:
    """The run at path: path itself if it is a run, else the newest run-N below it."""
    path = Path(path)
    if not path.exists():
        raise ExperimentError(f"{path} does not exist; run `minigpt train out={path}` first")
    if not path.is_dir():
        raise ExperimentError(f"{path} is a file; pass an experiment directory such as experiments/25-A")
    if is_run(path):
        return path
    numbers = sorted(int(m.group(1)) for p in path.iterdir() if (m := RUN_NAME.match(p.name)) and is_run(p))
    if not numbers:
        raise ExperimentError(
            f"{path} is not a minigpt experiment (no run-N/{CONFIG} inside); run `minigpt train out={path}` first"
        )
    return path / f"run-{numbers[-1]}"


def read_run(path: str | Path) -> tuple[Path, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(run path, config dict, result dict, tensors dict) of the run find_run(path) picks."""
    run = find_run(path)
    try:
        config = json.loads((run / CONFIG).read_text())
        result = json.loads((run / RESULT).read_text())
        import torch

        tensors = torch.load(run / TENSORS, weights_only=True)
    except (OSError, ValueError, RuntimeError) as exc:
        raise ExperimentError(f"{run} is damaged ({type(exc).__name__}); train it again") from None
    return run, config, result, tensors
