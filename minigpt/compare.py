"""Compare the probe-batch gradients of two runs, parameter by parameter."""

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from .experiment import ExperimentError, read_run
from .words import say

if TYPE_CHECKING:
    from matplotlib.figure import Figure

STEPS = {"0": "grads_step0", "final": "grads_final"}


@dataclass
class ParamComparison:
    name: str
    norm_a: float
    norm_b: float
    rel_error: float  # ||g_B - g_A|| / ||g_A||
    cosine: float  # nan where one side has no gradient
    note: str = ""


def compare_gradients(
    grads_a: Mapping[str, torch.Tensor | None], grads_b: Mapping[str, torch.Tensor | None]
) -> list[ParamComparison]:
    """One ParamComparison per parameter of grads_a (dicts name -> tensor or None)."""
    rows = []
    for name, ga in grads_a.items():
        gb = grads_b.get(name)
        if ga is not None and gb is not None:
            ga, gb, note = ga.double(), gb.double(), ""
        elif ga is not None:
            ga, gb, note = ga.double(), torch.zeros_like(ga, dtype=torch.float64), "no gradient in B"
        elif gb is not None:
            ga, gb, note = torch.zeros_like(gb), gb.double(), "no gradient in A"
        else:
            rows.append(ParamComparison(name, 0.0, 0.0, 0.0, math.nan, "no gradient in either"))
            continue
        norm_a, norm_b = ga.norm().item(), gb.norm().item()
        diff = (gb - ga).norm().item()
        rel = diff / norm_a if norm_a > 0 else (0.0 if diff == 0 else math.inf)
        cos = (ga.flatten() @ gb.flatten()).item() / (norm_a * norm_b) if norm_a and norm_b else math.nan
        rows.append(ParamComparison(name, norm_a, norm_b, rel, cos, note))
    return rows


def identical(grads_a: Mapping[str, torch.Tensor | None], grads_b: Mapping[str, torch.Tensor | None]) -> bool:
    """True when both name the same parameters and every gradient is bitwise equal (or both None)."""
    if grads_a.keys() != grads_b.keys():
        return False
    return all(
        (a is None and b is None) or (a is not None and b is not None and torch.equal(a, b))
        for a, b in ((grads_a[n], grads_b[n]) for n in grads_a)
    )


def format_table(rows: list[ParamComparison]) -> str:
    parameter, error, cosine, note = map(say, ("parameter", "rel. error", "cosine", "note"))
    width = max(len(parameter), *(len(r.name) for r in rows))
    lines = [f"{parameter:<{width}}  {'|grad A|':>10}  {'|grad B|':>10}  {error:>10}  {cosine:>8}  {note}"]
    lines.append("-" * len(lines[0]))
    for r in rows:
        lines.append(
            f"{r.name:<{width}}  {r.norm_a:>10.3e}  {r.norm_b:>10.3e}  {r.rel_error:>10.2%}  "
            f"{r.cosine:>8.5f}  {r.note}".rstrip()
        )
    return "\n".join(lines)


def median_error(rows: list[ParamComparison]) -> float:
    """The median relative error (the upper one of an even count): half the parameters are off by
    at least this much."""
    errors = sorted(r.rel_error for r in rows)
    return errors[len(errors) // 2]


def worst_row(rows: list[ParamComparison]) -> ParamComparison:
    return max(rows, key=lambda r: r.rel_error)


def summary_line(rows: list[ParamComparison]) -> str:
    identical = sum(r.rel_error == 0 for r in rows)
    worst = worst_row(rows)
    return (
        f"len(rows) = {len(rows)}, identical: {identical}, median_error: {median_error(rows):.2%}, "
        f"worst_row: {worst.name} {worst.rel_error:.2%}"
    )


XLABEL = (
    "relative gradient error (%), log scale\ngray: identical (drawn at the axis floor)\nred: no gradient on one side"
)


def plot_comparison(
    rows: list[ParamComparison], path: str | Path | None, title: str, xlabel: str = XLABEL, width: float = 4.8
) -> "Figure | Path":
    """A bar per parameter; saved to path (returned), or, with path None, the figure itself.
    Narrow (width inches) and tall, so that a phone shows its labels at a readable size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width, max(3.0, 0.2 * len(rows) + 1.2)), layout="constrained")
    floor = 1e-12  # identical gradients still get a visible (tiny) bar on the log axis
    values = [max(r.rel_error, floor) * 100 for r in rows]
    colors = ["tab:red" if r.note else "tab:gray" if r.rel_error == 0 else "tab:blue" for r in rows]
    ax.barh([r.name for r in rows], values, color=colors)
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_title(title, fontsize=10)
    ax.tick_params(axis="y", labelsize=8)
    if path is None:
        return fig
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


@dataclass
class RunComparison:
    run_a: Path
    run_b: Path
    step: str
    rows: list[ParamComparison] | None = None  # None when a run has no gradients
    missing: str = ""  # why, in one paragraph
    caveats: list[str] = field(default_factory=list)  # differences between the runs other than the break switches


def _gradients_or_reason(
    run: Path, result: dict[str, Any], tensors: dict[str, Any], key: str
) -> tuple[dict[str, torch.Tensor | None] | None, str]:
    if (grads := tensors.get(key)) is not None:
        return grads, ""
    if failure := result.get("failure"):
        why = say("{run} has no gradients: its backward raised at step {step}.", run=run, step=failure["step"])
        return None, f"{why}\n{failure['error']}"
    return None, say("{run} has no gradients recorded for step {step}", run=run, step=key)


SWITCHES = {"inplace", "bypass", "relu_inplace", "exp_inplace"}


def caveats(config_a: dict[str, Any], config_b: dict[str, Any]) -> list[str]:
    """Settings that differ between two runs besides the break switches (seed, sizes, ...)."""
    found = []
    for section in ("model", "train"):
        a, b = config_a.get(section, {}), config_b.get(section, {})
        for key in sorted(set(a) | set(b)):
            if key not in SWITCHES and key != "detect_anomaly" and a.get(key) != b.get(key):
                differs = "{setting} differs ({a} vs {b}): gradient differences are not the break alone"
                found.append(say(differs, setting=f"{section}.{key}", a=a.get(key), b=b.get(key)))
    return found


def compare_runs(path_a: str | Path, path_b: str | Path, step: str = "0") -> RunComparison:
    if step not in STEPS:
        raise ExperimentError(f"step must be one of {', '.join(STEPS)}, not {step!r}")
    run_a, config_a, result_a, tensors_a = read_run(path_a)
    run_b, config_b, result_b, tensors_b = read_run(path_b)
    grads_a, why_a = _gradients_or_reason(run_a, result_a, tensors_a, STEPS[step])
    grads_b, why_b = _gradients_or_reason(run_b, result_b, tensors_b, STEPS[step])
    comparison = RunComparison(run_a, run_b, step, caveats=caveats(config_a, config_b))
    if grads_a is None or grads_b is None:
        comparison.missing = "\n".join(w for w in (why_a, why_b) if w)
    else:
        comparison.rows = compare_gradients(grads_a, grads_b)
    return comparison


def figure_path(comparison: RunComparison) -> Path:
    a, b = (f"{run.parent.name}-{run.name}" for run in (comparison.run_a, comparison.run_b))
    return comparison.run_b.parent.parent / f"grad-compare_{a}_vs_{b}_step-{comparison.step}.png"
