"""Benchmark minigpt.diagnose: one diagnosed forward vs one plain forward of the default model.

Both run on the same model (the default configuration, as `minigpt train` builds it) and the
same training-size batch, side by side in one process: each repeat times a plain forward and a
diagnosed one, alternating which goes first. The plain forward builds the autograd graph too
(grad mode on), so the difference is the diagnosis alone: the dispatch mode, the pack hook's
copies, the graph walk and the matching. Prints the medians, their ratio (and, less sensitive to
a busy machine, the median of the per-repeat ratios) and whether the target ratio of the
medians (<= 5x) is met.

    python bench/diagnose_overhead.py [--repeats N] [--threads N] [--strict]
"""

import argparse
import os
import platform
import statistics
import sys
import time

import torch

from minigpt.data import build_dataset, sample_batch
from minigpt.diagnose import diagnose
from minigpt.train import TrainConfig, build_model, model_config

TARGET_RATIO = 5.0
WARMUP = 3  # the first diagnosis pays one-off costs (dispatch-mode set-up, caches)


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="timed pairs (default 30)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when the target is missed")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    if args.threads is not None:
        if args.threads < 1:
            parser.error("--threads must be >= 1")
        torch.set_num_threads(args.threads)

    data = build_dataset()
    settings = TrainConfig()
    config = model_config(data)
    model = build_model(config, settings.seed)
    x, y = sample_batch(data, settings.batch_size, torch.Generator().manual_seed(settings.seed))
    print(f"torch {torch.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"{torch.get_num_threads()} torch threads")
    print(f"model: default configuration (n_layer {config.n_layer}, n_embd {config.n_embd}), "
          f"batch {x.size(0)} x {x.size(1)} tokens")

    plain = lambda: model(x, y)
    diagnosed = lambda: diagnose(model, x, y)
    for _ in range(WARMUP):
        plain()
        report = diagnosed()
    print(f"one diagnosis: {report.ops} aten ops, {report.saved} saved tensors, {report.nodes} nodes, "
          f"{len(report.findings)} findings")

    plain_s, diagnosed_s = [], []
    for i in range(args.repeats):
        if i % 2:
            diagnosed_s.append(timed(diagnosed))
            plain_s.append(timed(plain))
        else:
            plain_s.append(timed(plain))
            diagnosed_s.append(timed(diagnosed))
    plain_median, diagnosed_median = statistics.median(plain_s), statistics.median(diagnosed_s)
    ratio = diagnosed_median / plain_median
    print(f"\n{args.repeats} repeats, median (min)")
    print(f"  plain forward      {plain_median * 1e3:8.2f} ms   ({min(plain_s) * 1e3:.2f} ms)")
    print(f"  diagnosed forward  {diagnosed_median * 1e3:8.2f} ms   ({min(diagnosed_s) * 1e3:.2f} ms)")
    paired = statistics.median(d / p for d, p in zip(diagnosed_s, plain_s))
    met = ratio <= TARGET_RATIO
    print(f"\nratio of the medians {ratio:.2f}x (median of the paired ratios {paired:.2f}x); "
          f"target <= {TARGET_RATIO:.0f}x: {'met' if met else 'MISSED'}")
    return 0 if met or not args.strict else 1


if __name__ == "__main__":
    sys.exit(main())
