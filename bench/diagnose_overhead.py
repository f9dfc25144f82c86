"""Benchmark inplace_doctor against a plain step and PyTorch's anomaly mode, side by side in one run.

Rows: a small MLP, the default mini-GPT and one about 10x its parameters, on the CPU; a nanoGPT-like
loop written as people write it (``NanoGPT``: its own attention, AdamW, clipping), per step of a loop
run whole under each tool; on a CUDA device, the two mini-GPTs and GPT-2-small- and medium-sized
configurations of `GPTConfig`, on random tokens.

* Time: one training step, plain, under ``torch.autograd.detect_anomaly()`` and under
  ``diagnose(step)``, rotating which goes first; medians (synchronised on a GPU). Targets: at most
  anomaly mode's time on every row, at most 3x plain on every row but the MLP (a per-op floor).
* Memory: the peak of tensor memory of a plain forward against a diagnosed one with its examination
  (the profiler's memory events; on a GPU, max_memory_allocated over one step). Target: at most 1.1x.
* Installed, unasked: ``pytest -q`` on a one-line test, with the plugin and with
  ``-p no:inplace_doctor``, in fresh processes (medians). Target: under 0.1 s apart.

    python bench/diagnose_overhead.py [--repeats N] [--threads N] [--device cpu|cuda|all] [--strict]
"""

import argparse
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from inplace_doctor import diagnose, watch
from inplace_doctor.digest import CHUNK
from minigpt.data import build_dataset, sample_batch
from minigpt.model import GPT, GPTConfig
from minigpt.train import TrainConfig, build_model, model_config

MEMORY_TARGET = 1.1
PLUGIN_TARGET_S = 0.1  # what the installed plugin may add to a pytest run that does not ask for it
TIME_TARGET = 3.0
WARMUP = 3  # the first diagnosis pays one-off costs (dispatch-mode set-up, caches, CUDA kernels)
BIGGER = {"n_embd": 128, "n_layer": 6}  # about 10x the default model's parameters
GPT2_SMALL = {"vocab_size": 50304, "block_size": 256, "n_layer": 12, "n_head": 12, "n_embd": 768}
GPT2_MEDIUM = {"vocab_size": 50304, "block_size": 512, "n_layer": 24, "n_head": 16, "n_embd": 1024}
GPT2_BATCH = 8
WAYS = ("plain", "anomaly", "diagnosed")


def peak_cpu_bytes(run: Callable[[], object]) -> int:
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


def peak_cuda_bytes(run: Callable[[], object]) -> int:
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    run()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - base


@dataclass
class Figures:
    name: str
    device: str
    parameters: int
    plain_bytes: int
    diagnosed_bytes: int
    seconds: dict[str, list[float]]

    def median(self, way: str) -> float:
        return statistics.median(self.seconds[way])

    @property
    def memory_ratio(self) -> float:
        """Diagnosed over plain; 1 where memory was not measured (plain_bytes 0: a loop's row)."""
        return self.diagnosed_bytes / self.plain_bytes if self.plain_bytes else 1.0

    def ratio(self, way: str) -> float:
        return self.median(way) / self.median("plain")

    @property
    def time_met(self) -> bool:
        """At most anomaly mode's time; and, but on the small MLP, at most TIME_TARGET x plain."""
        fast = self.name.startswith("small MLP") or self.ratio("diagnosed") <= TIME_TARGET
        return self.median("diagnosed") <= self.median("anomaly") and fast

    @property
    def met(self) -> bool:
        return self.time_met and self.memory_ratio <= MEMORY_TARGET


def under_anomaly(run: Callable[[], object]) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Anomaly Detection has been enabled")  # once per step otherwise
        with torch.autograd.detect_anomaly(check_nan=True):
            run()


def watched(run: Callable[[], object]) -> None:
    with watch(quiet=True):
        run()


def batch_for(config: GPTConfig, device: str, seed: int, size: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, config.vocab_size, (size, config.block_size + 1), generator=generator)
    return tokens[:, :-1].to(device), tokens[:, 1:].to(device)


def measure(
    name: str, config: GPTConfig, device: str, batch: tuple[torch.Tensor, torch.Tensor], repeats: int
) -> Figures:
    model: GPT = build_model(config, TrainConfig().seed).to(device)
    return measure_loss(name, model, lambda: model(*batch)[1], device, repeats)


def small_mlp(repeats: int) -> Figures:
    """The small MLP row: 32 -> 64 -> 64 -> 1, ReLU, a batch of 64, mean squared error."""
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    x, y = torch.randn(64, 32), torch.randn(64, 1)
    return measure_loss("small MLP (32-64-64-1)", model, lambda: F.mse_loss(model(x), y), "cpu", repeats)


class CausalSelfAttention(torch.nn.Module):
    """nanoGPT's attention, as its model.py writes it (the slow path: an explicit mask)."""

    def __init__(self, n_embd: int, n_head: int, block_size: int):
        super().__init__()
        self.c_attn = torch.nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = torch.nn.Linear(n_embd, n_embd)
        self.attn_dropout, self.resid_dropout = torch.nn.Dropout(0.1), torch.nn.Dropout(0.1)
        self.n_head = n_head
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = self.attn_dropout(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class Block(torch.nn.Module):
    def __init__(self, n_embd: int, n_head: int, block_size: int):
        super().__init__()
        self.ln_1, self.ln_2 = torch.nn.LayerNorm(n_embd), torch.nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size)
        self.mlp = torch.nn.Sequential(
            torch.nn.Linear(n_embd, 4 * n_embd),
            torch.nn.GELU(),
            torch.nn.Linear(4 * n_embd, n_embd),
            torch.nn.Dropout(0.1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class NanoGPT(torch.nn.Module):
    """A character-level GPT as nanoGPT's model.py builds it: token and position embeddings, pre-norm
    blocks, a final LayerNorm and a head tied to the token embedding."""

    def __init__(self, vocab: int = 65, block_size: int = 64, n_layer: int = 4, n_head: int = 4, n_embd: int = 64):
        super().__init__()
        self.wte, self.wpe = torch.nn.Embedding(vocab, n_embd), torch.nn.Embedding(block_size, n_embd)
        self.drop = torch.nn.Dropout(0.1)
        self.h = torch.nn.ModuleList(Block(n_embd, n_head, block_size) for _ in range(n_layer))
        self.ln_f = torch.nn.LayerNorm(n_embd)
        self.lm_head = torch.nn.Linear(n_embd, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(idx.size(1), device=idx.device)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def nanogpt_loop(repeats: int, steps: int = 10) -> Figures:
    """The nanoGPT-like row: `steps` iterations of a training loop as nanoGPT's train.py writes them
    (a random batch of a fixed corpus, forward, backward, clipping, AdamW), the loop run whole
    plain, inside one detect_anomaly() and inside one watch(); per step."""
    torch.manual_seed(0)
    model = NanoGPT()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    corpus = torch.randint(0, 65, (20_000,), generator=torch.Generator().manual_seed(0))
    batch, block = 16, 64

    def loop() -> None:
        for _ in range(steps):
            starts = torch.randint(len(corpus) - block - 1, (batch,))
            x = torch.stack([corpus[i : i + block] for i in starts])
            y = torch.stack([corpus[i + 1 : i + 1 + block] for i in starts])
            loss = model(x, y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()

    runs = {"plain": loop, "anomaly": lambda: under_anomaly(loop), "diagnosed": lambda: watched(loop)}
    for fn in runs.values():
        fn()
    seconds: dict[str, list[float]] = {way: [] for way in WAYS}
    for i in range(max(3, repeats // 4)):  # each repeat is `steps` steps
        for way in WAYS[i % 3 :] + WAYS[: i % 3]:
            start = time.perf_counter()
            runs[way]()
            seconds[way].append((time.perf_counter() - start) / steps)
    parameters = sum(p.numel() for p in model.parameters())
    return Figures(f"nanoGPT-like loop (4 x 64, {batch} x {block} tokens)", "cpu", parameters, 0, 0, seconds)


def unasked_plugin_cost(repeats: int) -> tuple[float, float]:
    """Seconds of `pytest -q` on a one-line test: (with the plugin registered, with -p no:inplace_doctor)."""
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "test_one.py"), "w", encoding="utf-8") as file:
            file.write("def test_one():\n    assert 1 + 1 == 2\n")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_one.py"]
        times: dict[str, list[float]] = {"with": [], "without": []}
        ways = [("with", []), ("without", ["-p", "no:inplace_doctor"])]
        for i in range(max(6, repeats)):
            for way, extra in ways if i % 2 else ways[::-1]:  # alternating which goes first
                start = time.perf_counter()
                subprocess.run(command + extra, cwd=folder, check=True, capture_output=True)
                times[way].append(time.perf_counter() - start)
    return statistics.median(times["with"]), statistics.median(times["without"])


def plugin_cost(repeats: int) -> str:
    """What `pytest --inplace-doctor` adds to a test: a watch() block around it (medians)."""
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    x, y = torch.randn(64, 32), torch.randn(64, 1)

    def test() -> None:
        model.zero_grad(set_to_none=True)
        F.mse_loss(model(x), y).backward()

    def median_ms(fn: Callable[[], None]) -> float:
        for _ in range(WARMUP):
            fn()
        times = []
        for _ in range(repeats * 5):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return statistics.median(times) * 1e3

    empty = median_ms(lambda: watched(lambda: None))
    plain, diagnosed = median_ms(test), median_ms(lambda: watched(test))
    return (
        f"pytest --inplace-doctor, per test: {empty:.2f} ms for a test that runs no torch op; "
        f"{plain:.2f} ms -> {diagnosed:.2f} ms for a test of one small-MLP step"
    )


def measure_loss(
    name: str, model: torch.nn.Module, loss_of: Callable[[], torch.Tensor], device: str, repeats: int
) -> Figures:
    cuda = device == "cuda"

    def step() -> None:
        model.zero_grad(set_to_none=True)
        loss_of().backward()

    runs = {"plain": step, "anomaly": lambda: under_anomaly(step), "diagnosed": lambda: diagnose(step)}

    def timed(fn: Callable[[], object]) -> float:
        if cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        if cuda:
            torch.cuda.synchronize()
        return time.perf_counter() - start

    for _ in range(WARMUP):
        for fn in runs.values():
            fn()
    if cuda:
        plain_bytes, diagnosed_bytes = peak_cuda_bytes(step), peak_cuda_bytes(runs["diagnosed"])
    else:
        plain_bytes = peak_cpu_bytes(loss_of)
        diagnosed_bytes = peak_cpu_bytes(lambda: diagnose(loss_of))
    seconds: dict[str, list[float]] = {way: [] for way in WAYS}
    for i in range(repeats):  # rotate which goes first
        for way in WAYS[i % 3 :] + WAYS[: i % 3]:
            seconds[way].append(timed(runs[way]))
    return Figures(name, device, sum(p.numel() for p in model.parameters()), plain_bytes, diagnosed_bytes, seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="timed triples per row (default 20)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda", "all"),
        default="all",
        help="which rows: the CPU's, the GPU's (where CUDA exists) or both (default)",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    if args.threads is not None:
        if args.threads < 1:
            parser.error("--threads must be >= 1")
        torch.set_num_threads(args.threads)

    data = build_dataset()
    default, bigger = model_config(data), model_config(data, **BIGGER)
    settings = TrainConfig()
    data_batch = sample_batch(data, settings.batch_size, torch.Generator().manual_seed(settings.seed))
    print(
        f"torch {torch.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"{torch.get_num_threads()} torch threads; mini-GPT rows: batch {settings.batch_size} sequences"
    )
    devices = ["cpu"] if args.device in ("cpu", "all") else []
    if args.device in ("cuda", "all"):
        if torch.cuda.is_available():
            devices.append("cuda")
            print(f"GPU: {torch.cuda.get_device_name()}")
        else:
            print("no CUDA device here: the GPU rows (mini-GPT, 10x, GPT-2-small- and -medium-sized) are not run")
    rows: list[Figures] = []
    for device in devices:
        if device == "cpu":
            rows += [small_mlp(args.repeats), nanogpt_loop(args.repeats)]
        batch = (data_batch[0].to(device), data_batch[1].to(device))
        for label, config in (("mini-GPT", default), ("10x", bigger)):
            name = f"{label} (n_layer {config.n_layer}, n_embd {config.n_embd})"
            rows.append(measure(name, config, device, batch, args.repeats))
        if device == "cuda":
            for label, sizes in (("GPT-2-small-sized", GPT2_SMALL), ("GPT-2-medium-sized", GPT2_MEDIUM)):
                config = GPTConfig(**sizes)
                name = f"{label} ({config.n_layer} x {config.n_embd}, {GPT2_BATCH} x {config.block_size} tokens)"
                gpt2_batch = batch_for(config, device, settings.seed, GPT2_BATCH)
                rows.append(measure(name, config, device, gpt2_batch, max(5, args.repeats // 2)))
                torch.cuda.empty_cache()

    width = max((len(r.name) for r in rows), default=5)
    print(
        f"\ntime: one training step (forward + backward), medians of rotating repeats; targets: diagnosed <= "
        f"anomaly, and <= {TIME_TARGET:.0f}x plain but on the small MLP"
    )
    print(
        f"{'model':<{width}}  {'device':>6}  {'params':>11}  {'plain':>9}  {'anomaly':>9}  {'diagnosed':>9}  "
        f"{'anomaly/plain':>13}  {'diagnosed/plain':>15}  {'diagnosed/anomaly':>17}"
    )
    for r in rows:
        print(
            f"{r.name:<{width}}  {r.device:>6}  {r.parameters:>11,}  {r.median('plain') * 1e3:>6.1f} ms  "
            f"{r.median('anomaly') * 1e3:>6.1f} ms  {r.median('diagnosed') * 1e3:>6.1f} ms  "
            f"{r.ratio('anomaly'):>12.2f}x  {r.ratio('diagnosed'):>14.2f}x  "
            f"{r.median('diagnosed') / r.median('anomaly'):>16.2f}x  "
            f"{'MET' if r.time_met else 'MISSED'}"
        )
    print(
        f"\nmemory: peak bytes of tensor memory, plain against diagnosed (CPU: a forward and its examination; "
        f"GPU: a step); target <= {MEMORY_TARGET}x"
    )
    print(f"{'model':<{width}}  {'device':>6}  {'plain':>11}  {'diagnosed':>11}  {'ratio':>6}")
    for r in rows:
        if not r.plain_bytes:  # a loop's row: its time only
            continue
        print(
            f"{r.name:<{width}}  {r.device:>6}  {r.plain_bytes / 2**20:>7.2f} MiB  "
            f"{r.diagnosed_bytes / 2**20:>7.2f} MiB  {r.memory_ratio:>5.2f}x  "
            f"{'MET' if r.memory_ratio <= MEMORY_TARGET else 'MISSED'}"
        )
    print(f"(not counted: the digests' fixed weights, {CHUNK * 4 // 2**10} KiB allocated once per process and device)")
    unasked_met = True
    if "cpu" in devices:
        print(f"\n{plugin_cost(args.repeats)}")
        with_plugin, without = unasked_plugin_cost(args.repeats)
        unasked_met = with_plugin - without < PLUGIN_TARGET_S
        print(
            f"pytest -q on a one-line test, not asking for the diagnoser: {with_plugin:.2f} s with the plugin "
            f"installed, {without:.2f} s with -p no:inplace_doctor (+{with_plugin - without:.2f} s; target "
            f"< {PLUGIN_TARGET_S} s) {'MET' if unasked_met else 'MISSED'}"
        )
    missed = not all(r.met for r in rows) or not unasked_met
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
