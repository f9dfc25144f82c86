"""Benchmark the default training run: what `just phase-25-train inplace=false` runs.

1. One cold run of the command line in a subprocess, timed from the outside (what a reader waits for).
2. ``import torch`` and ``import torch._dynamo`` (which the optimizer imports on first use) timed in a
   fresh interpreter.
3. The same training (its config.json read back) repeated here after a warm-up, with torch's default
   thread count, then one thread (on a busy machine the default can be many times slower).

Prints steps/s and wall time (median/min/max) and whether the cold command meets the <= 5 s target.

    python bench/train_speed.py [--repeats N] [--strict]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from minigpt.data import build_dataset
from minigpt.model import GPTConfig
from minigpt.train import TrainConfig, train

TARGET_S = 5.0
COMMAND = ["train", "inplace=false"]  # the justfile's phase-25-train recipe runs `python -m minigpt train ARGS`


def cold_cli_run(workdir):
    """(wall time of the whole command, the run's recorded config and result)."""
    out = Path(workdir) / "experiments" / "25-A"
    command = [sys.executable, "-m", "minigpt", *COMMAND, f"out={out}"]
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"benchmark: `minigpt {' '.join(COMMAND)}` failed ({proc.returncode}):\n{proc.stderr}")
    run = out / "run-1"
    return wall, json.loads((run / "config.json").read_text()), json.loads((run / "result.json").read_text())


IMPORTS = """
import time
start = time.perf_counter()
import torch
middle = time.perf_counter()
import torch._dynamo
print(middle - start, time.perf_counter() - middle)
"""


def timed_runs(config, settings, data, repeats):
    """(wall times, steps/s) of repeated in-process training runs."""
    walls, rates = [], []
    for _ in range(repeats):
        result = train(config, settings, data)
        if result.status != "completed":
            sys.exit(f"benchmark: in-process training did not complete: {result.failure}")
        walls.append(result.wall_time_s)
        rates.append(result.steps_per_s)
    return walls, rates


def load():
    """The 1-minute load average: other work on the machine skews every number here."""
    return f"load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "load unknown"


def line(label, values, unit, digits):
    med, lo, hi = statistics.median(values), min(values), max(values)
    return f"  {label:<22} median {med:.{digits}f} {unit}   min {lo:.{digits}f}   max {hi:.{digits}f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="in-process training runs (default 5)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when the target is missed")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")

    print(
        f"torch {torch.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"{torch.get_num_threads()} torch threads, {load()}"
    )
    with tempfile.TemporaryDirectory(prefix="minigpt-bench-") as workdir:
        cold_wall, recorded, cold_result = cold_cli_run(workdir)
    config, settings = GPTConfig(**recorded["model"]), TrainConfig(**recorded["train"])
    print(
        f"configuration: {settings.steps} steps, batch {settings.batch_size}, seed {settings.seed}, "
        f"n_layer {config.n_layer}, n_embd {config.n_embd}, block_size {config.block_size}"
    )

    print(f"\ncold: `python -m minigpt {' '.join(COMMAND)}` in a subprocess")
    print(f"  whole command          {cold_wall:.2f} s")
    print(f"  training inside it     {cold_result['wall_time_s']:.2f} s ({cold_result['steps_per_s']:.1f} steps/s)")

    imports = subprocess.run([sys.executable, "-c", IMPORTS], capture_output=True, text=True, check=True)
    torch_s, dynamo_s = (float(v) for v in imports.stdout.split())
    print(
        f"  cold-start costs, timed in a fresh interpreter: import torch {torch_s:.2f} s (before training), "
        f"import torch._dynamo {dynamo_s:.2f} s (inside training: the optimizer's first construction)"
    )

    data = build_dataset()
    default_threads = torch.get_num_threads()
    first_wall, first_rate = timed_runs(config, settings, data, 1)
    print(
        f"\nin this process: warm-up run {first_wall[0]:.2f} s ({first_rate[0]:.1f} steps/s), "
        f"then the same training {args.repeats} times per thread count"
    )
    walls, rates = timed_runs(config, settings, data, args.repeats)
    print(f"  {default_threads} threads (default):")
    print(line("training wall time", walls, "s", 2))
    print(line("steps/s", rates, "", 1))
    if default_threads > 1:
        torch.set_num_threads(1)
        walls_1, rates_1 = timed_runs(config, settings, data, args.repeats)
        torch.set_num_threads(default_threads)
        print("  1 thread:")
        print(line("training wall time", walls_1, "s", 2))
        print(line("steps/s", rates_1, "", 1))

    met = cold_wall <= TARGET_S
    print(
        f"\ntarget: whole cold command <= {TARGET_S:.0f} s: {'met' if met else 'MISSED'} ({cold_wall:.2f} s); "
        f"warm training median {statistics.median(walls):.2f} s "
        f"({'within' if statistics.median(walls) <= TARGET_S else 'over'} the target); {load()}"
    )
    return 0 if met or not args.strict else 1


if __name__ == "__main__":
    sys.exit(main())
