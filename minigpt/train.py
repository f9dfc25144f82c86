"""Seeded, deterministic training that records what phase 25 compares: per-step loss, test accuracy,
and the probe batch's output and gradients at step 0 (the same weights for every variant: a difference
is the break alone) and at the end; or the error, when backward raises."""

import platform
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
import torch.nn as nn

from .data import AgreementData, build_dataset, inputs_and_targets, probe_batch, sample_batch
from .model import GPT, GPTConfig, check_limits, setting

Gradients = dict[str, torch.Tensor | None]  # parameter name -> gradient (None where backward gave none)
Progress = Callable[[int, int, float], object]  # progress(step, steps, loss)


@dataclass
class TrainConfig:
    # The upper bound is a typo guard: 100000 steps already take ~40 minutes on one CPU core.
    steps: int = setting(150, "training steps", min=1, max=100_000)
    seed: int = setting(0, "random seed of the weights and the batches", min=0, max=2**32 - 1)
    batch_size: int = 32
    lr: float = 3e-3
    detect_anomaly: bool = setting(False, "run under torch.autograd.set_detect_anomaly(True)")
    eval_every: int = 10

    def __post_init__(self) -> None:
        check_limits(self)


@dataclass
class BackwardFailure:
    step: int
    error: str  # "RuntimeError: ..." exactly as PyTorch raised it
    warnings: list[str]  # warning texts emitted meanwhile (anomaly mode's forward traceback)


@dataclass
class RunResult:
    status: str  # "completed" or "backward_raised"
    losses: list[float] = field(default_factory=list)
    eval_steps: list[int] = field(default_factory=list)
    test_accuracy: list[float] = field(default_factory=list)
    train_accuracy: list[float] = field(default_factory=list)
    test_exact_match: float | None = None
    failure: BackwardFailure | None = None
    wall_time_s: float = 0.0
    steps_per_s: float | None = None
    probe_logits: torch.Tensor | None = None
    grads_step0: Gradients | None = None
    grads_final: Gradients | None = None

    def summary(self) -> dict[str, Any]:
        """The JSON-able part (tensors are stored apart)."""
        return {k: v for k, v in asdict(self).items() if k not in {"probe_logits", "grads_step0", "grads_final"}}


class BackwardRaised(Exception):
    def __init__(self, failure: BackwardFailure) -> None:
        super().__init__(failure.error)
        self.failure = failure


# Where model_config() puts the model when no device= is given: "cpu", unless a command that
# measures on a device (python -m phase25 record --device cuda) chose another with use_device().
_default_device = "cpu"


def use_device(device: str) -> None:
    """Make model_config() build on device ("cpu" or "cuda") from now on, in this process; a
    ValueError of one line if it cannot run there."""
    global _default_device
    GPTConfig(device=device)  # validates: known device, and CUDA present for "cuda"
    _default_device = device


def default_device() -> str:
    return _default_device


def model_config(data: AgreementData, **switches: Any) -> GPTConfig:
    """GPTConfig sized for the bundled data set, with the given break switches (on the device
    use_device() chose, unless device= is among them)."""
    return GPTConfig(vocab_size=data.vocab_size, block_size=data.block_size, **{"device": _default_device, **switches})


def build_model(config: GPTConfig, seed: int) -> GPT:
    torch.manual_seed(seed)
    return GPT(config)


def forward_backward(
    model: nn.Module, x: torch.Tensor, y: torch.Tensor, detect_anomaly: bool = False, step: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """loss.backward() on one batch; returns (logits, loss) or raises BackwardRaised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.set_detect_anomaly(detect_anomaly):
            logits, loss = model(x, y)
            try:
                loss.backward()
            except RuntimeError as exc:
                texts = [str(w.message) for w in caught]
                raise BackwardRaised(BackwardFailure(step, f"{type(exc).__name__}: {exc}", texts)) from exc
    for w in caught:  # anything unrelated is passed on untouched
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return logits, loss


def try_backward(
    model: nn.Module, x: torch.Tensor, y: torch.Tensor, detect_anomaly: bool = False
) -> BackwardFailure | None:
    """None when forward + backward complete, else the BackwardFailure (error text, warnings)."""
    try:
        forward_backward(model, x, y, detect_anomaly)
    except BackwardRaised as raised:
        return raised.failure
    return None


def gradients(model: nn.Module) -> Gradients:
    """name -> gradient on the CPU (None where backward gave the parameter no gradient): runs on
    any device compare, store and load alike."""
    return {name: None if p.grad is None else p.grad.detach().cpu().clone() for name, p in model.named_parameters()}


def probe_gradients(
    model: nn.Module, data: AgreementData, detect_anomaly: bool = False, step: int = 0
) -> tuple[torch.Tensor, Gradients]:
    """(probe logits, gradients) of the fixed probe batch, leaving the model's .grad cleared."""
    model.zero_grad(set_to_none=True)
    x, y = probe_batch(data)
    logits, _ = forward_backward(model, x, y, detect_anomaly, step)
    grads = gradients(model)
    model.zero_grad(set_to_none=True)
    return logits.detach().cpu(), grads


def switch_gradients(data: AgreementData, seed: int = 0, **switches: Any) -> Gradients:
    """Probe-batch gradients of a fresh model with the given break switches (same seed, same weights)."""
    return probe_gradients(build_model(model_config(data, **switches), seed), data)[1]


@torch.no_grad()
def accuracy(model: nn.Module, examples: torch.Tensor, data: AgreementData) -> tuple[float, float]:
    """(token accuracy, exact-match rate) over the rewritten half of each example."""
    model.eval()
    x, y = inputs_and_targets(examples, data)
    logits, _ = model(x)
    model.train()
    logits = logits.cpu()
    scored = y != -1
    correct = (logits.argmax(-1) == y) | ~scored
    return ((correct & scored).sum() / scored.sum()).item(), correct.all(1).float().mean().item()


def train(
    config: GPTConfig,
    settings: TrainConfig | None = None,
    data: AgreementData | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Train a fresh model into a RunResult (never raises for a failing backward); progress(step, steps, loss)."""
    settings, data = settings or TrainConfig(), data or build_dataset()
    start = time.perf_counter()
    model = build_model(config, settings.seed)
    result = RunResult(status="completed")
    try:
        result.probe_logits, result.grads_step0 = probe_gradients(model, data, settings.detect_anomaly)
        optimizer = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=0.0)
        batches = torch.Generator().manual_seed(settings.seed)
        for step in range(1, settings.steps + 1):
            x, y = sample_batch(data, settings.batch_size, batches)
            optimizer.zero_grad(set_to_none=True)
            _, loss = forward_backward(model, x, y, settings.detect_anomaly, step)
            optimizer.step()
            result.losses.append(loss.item())
            if progress:
                progress(step, settings.steps, result.losses[-1])
            if step % settings.eval_every == 0 or step == settings.steps:
                result.eval_steps.append(step)
                result.test_accuracy.append(accuracy(model, data.test, data)[0])
                result.train_accuracy.append(accuracy(model, data.train, data)[0])
        result.test_exact_match = accuracy(model, data.test, data)[1]
        _, result.grads_final = probe_gradients(model, data, settings.detect_anomaly, settings.steps)
    except BackwardRaised as raised:
        result.status = "backward_raised"
        result.failure = raised.failure
        if result.probe_logits is None:  # the forward of step 0 still ran: keep its output
            with torch.no_grad():
                result.probe_logits = model(probe_batch(data)[0])[0].cpu()
    result.wall_time_s = time.perf_counter() - start
    result.steps_per_s = len(result.losses) / result.wall_time_s if result.losses else None
    return result


def environment() -> dict[str, str]:
    return {"torch": torch.__version__, "python": platform.python_version()}


def run_record(config: GPTConfig, settings: TrainConfig) -> dict[str, Any]:
    """What a run stores as its config.json."""
    return {"model": asdict(config), "train": asdict(settings), "environment": environment()}
