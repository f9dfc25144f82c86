"""Benchmark inplace_doctor: what a diagnosis costs in memory and in time, side by side in one run.

Two models: the default mini-GPT (as `minigpt train` builds it) and one about 10x its parameters
(wider and deeper, from the same GPTConfig), each on a training-size batch.

* Memory: the peak of the bytes of tensor memory allocated (net of what was freed) during one
  plain forward, when the graph holds every saved activation, against the same during a
  diagnosed forward and its examination (``diagnose(model, x, y)``: the recorder's log, its
  digests of the saved tensors, the graph walk). Measured with the torch profiler's memory events
  on the CPU allocator, the same way for both (tensor memory: the recorder's Python objects, a
  few hundred bytes per saved tensor, are not counted). Target: at most 1.25x.
* Time: one plain forward + backward against the same under the diagnoser
  (``diagnose(step)``, where ``step`` runs the forward and calls backward itself, as a training
  loop does). Each repeat times both, alternating which goes first; the figure is the ratio of
  the medians. Target: at most 3x.

    python bench/diagnose_overhead.py [--repeats N] [--threads N] [--strict]
"""

import argparse
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Callable, List, Optional

import torch
from torch.profiler import ProfilerActivity, profile

from minigpt.data import AgreementData, build_dataset, sample_batch
from inplace_doctor import Report, diagnose
from inplace_doctor.digest import CHUNK
from minigpt.model import GPT, GPTConfig
from minigpt.train import TrainConfig, build_model, model_config

MEMORY_TARGET = 1.25
TIME_TARGET = 3.0
WARMUP = 3  # the first diagnosis pays one-off costs (dispatch-mode set-up, caches)
BIGGER = {"n_embd": 128, "n_layer": 6}  # about 10x the default model's parameters


def peak_allocated_bytes(run: Callable[[], object]) -> int:
    """The peak of the net bytes allocated on the CPU while run() runs (its result kept alive
    until it returns, so a forward's graph counts)."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        kept = run()
    del kept
    events = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    live = peak = 0
    for event in sorted(events, key=lambda e: e.start_ns()):
        live += event.nbytes()
        peak = max(peak, live)
    return peak


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


@dataclass
class Figures:
    name: str
    parameters: int
    plain_bytes: int
    diagnosed_bytes: int
    plain_s: List[float]
    diagnosed_s: List[float]

    @property
    def memory_ratio(self) -> float:
        return self.diagnosed_bytes / self.plain_bytes

    @property
    def time_ratio(self) -> float:
        return statistics.median(self.diagnosed_s) / statistics.median(self.plain_s)


def measure(name: str, config: GPTConfig, data: AgreementData, repeats: int) -> Figures:
    settings = TrainConfig()
    model: GPT = build_model(config, settings.seed)
    x, y = sample_batch(data, settings.batch_size, torch.Generator().manual_seed(settings.seed))

    def step() -> None:
        model.zero_grad(set_to_none=True)
        model(x, y)[1].backward()

    def diagnosed_step() -> Report:
        return diagnose(step)

    for _ in range(WARMUP):
        step()
        diagnosed_step()
    plain_bytes = peak_allocated_bytes(lambda: model(x, y))
    diagnosed_bytes = peak_allocated_bytes(lambda: diagnose(model, x, y))
    plain_s: List[float] = []
    diagnosed_s: List[float] = []
    for i in range(repeats):  # alternate which goes first
        if i % 2 == 0:
            plain_s.append(timed(step))
            diagnosed_s.append(timed(diagnosed_step))
        else:
            diagnosed_s.append(timed(diagnosed_step))
            plain_s.append(timed(step))
    return Figures(name, sum(p.numel() for p in model.parameters()), plain_bytes, diagnosed_bytes,
                   plain_s, diagnosed_s)


def verdict(ratio: float, target: float) -> str:
    return "MET" if ratio <= target else "MISSED"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="timed pairs per model (default 20)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    if args.threads is not None:
        if args.threads < 1:
            parser.error("--threads must be >= 1")
        torch.set_num_threads(args.threads)

    data = build_dataset()
    default = model_config(data)
    bigger = model_config(data, **BIGGER)
    print(f"torch {torch.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"{torch.get_num_threads()} torch threads; batch {TrainConfig().batch_size} sequences")
    rows = [measure(f"mini-GPT (n_layer {default.n_layer}, n_embd {default.n_embd})", default, data, args.repeats),
            measure(f"bigger (n_layer {bigger.n_layer}, n_embd {bigger.n_embd})", bigger, data, args.repeats)]

    width = max(len(r.name) for r in rows)
    print("\nmemory: peak bytes allocated during a forward (plain) and a diagnosed forward with its examination")
    print(f"{'model':<{width}}  {'params':>9}  {'plain':>10}  {'diagnosed':>10}  {'ratio':>6}  target <= {MEMORY_TARGET}x")
    for r in rows:
        print(f"{r.name:<{width}}  {r.parameters:>9,}  {r.plain_bytes / 2**20:>7.2f} MiB  "
              f"{r.diagnosed_bytes / 2**20:>6.2f} MiB  {r.memory_ratio:>5.2f}x  {verdict(r.memory_ratio, MEMORY_TARGET)}")
    print(f"(not counted: the digests' fixed weights, {CHUNK * 4 // 2**10} KiB allocated once per process)")
    print(f"\ntime: forward + backward, median of {args.repeats} alternating repeats (min)")
    print(f"{'model':<{width}}  {'plain':>17}  {'diagnosed':>17}  {'ratio':>6}  target <= {TIME_TARGET:.0f}x")
    for r in rows:
        plain = f"{statistics.median(r.plain_s) * 1e3:.1f} ({min(r.plain_s) * 1e3:.1f}) ms"
        diagnosed = f"{statistics.median(r.diagnosed_s) * 1e3:.1f} ({min(r.diagnosed_s) * 1e3:.1f}) ms"
        print(f"{r.name:<{width}}  {plain:>17}  {diagnosed:>17}  {r.time_ratio:>5.2f}x  "
              f"{verdict(r.time_ratio, TIME_TARGET)}")
    missed = any(r.memory_ratio > MEMORY_TARGET or r.time_ratio > TIME_TARGET for r in rows)
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
