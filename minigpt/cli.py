"""Command line: ``minigpt COMMAND key=value ...`` (the phase-25 reproducer).

minigpt train inplace=false
minigpt train inplace=true detect_anomaly=true
minigpt train inplace=true bypass=hooks
minigpt train inplace=true device=cuda
minigpt grad-compare experiments/25-A experiments/25-B
minigpt diagnose inplace=true bypass=hooks
minigpt diagnose [--steps N|all] path/to/train.py [script args ...]
"""

# Every key is a field of the dataclass it configures (GPTConfig, TrainConfig, or the two
# below), made with model.setting(): name, type, default, help and limits are declared there
# only. model.limit_problem is the one check of a value, made here (to quote the text as typed)
# and in each dataclass's __post_init__, whose other errors (bypass without inplace) pass through.

import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import Field, dataclass, fields
from typing import Any, NamedTuple, TextIO, TypeVar

from . import experiments, words
from .compare import STEPS, XLABEL, compare_runs, figure_path, format_table, plot_comparison, summary_line
from .data import build_dataset, probe_batch
from .experiment import ExperimentError, check_writable, write_run
from .model import GPTConfig, allowed_values, check_limits, limit_problem, setting
from .train import TrainConfig, build_model, model_config, run_record, train
from .words import say

USAGE = "usage: minigpt {train,grad-compare,diagnose} [key=value ...]; see `minigpt help`"
PROGRESS_EVERY_S = 2.0  # at most one progress line per interval, none for runs shorter than it


@dataclass
class Output:
    """Where ``minigpt train`` stores its run (not part of the run's record)."""

    out: str = setting(
        None,
        "experiment directory, given a new run-N folder by each run; "
        "default named after the switches: experiments/25-A, 25-B, 25-B-<bypass>, ...",
    )


@dataclass
class GradientsToCompare:
    step: str = setting(
        "0", "which probe gradients: 0 (before any update: same weights) or final", choices=tuple(STEPS)
    )

    def __post_init__(self) -> None:
        check_limits(self)


class UsageError(Exception):
    """Bad input: printed as one line, exit status 2."""


class Key(NamedTuple):
    owner: type  # the dataclass that declares the key
    field: Field  # its dataclasses.Field


def keys_of(owner: type, only: Sequence[str] | None = None) -> dict[str, Key]:
    """The keys owner declares: its fields made with setting() (those that carry a help text)."""
    return {f.name: Key(owner, f) for f in fields(owner) if "help" in f.metadata and (only is None or f.name in only)}


TRAIN_KEYS = keys_of(GPTConfig) | keys_of(TrainConfig) | keys_of(Output)
COMPARE_KEYS = keys_of(GradientsToCompare)
DIAGNOSE_KEYS = keys_of(GPTConfig) | keys_of(TrainConfig, only=("seed",))


def parse_bool(text: str) -> bool:
    value = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}.get(text.lower())
    if value is None:
        raise ValueError("expected true or false")
    return value


def parse_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError("expected a whole number") from None


def parse_text(text: str) -> str:
    if not text:
        raise ValueError("expected a value")
    return text


PARSERS: dict[Any, Callable[[str], Any]] = {bool: parse_bool, int: parse_int, str: parse_text}


def parse_value(key: Key, text: str) -> Any:
    """The value of key=text, as its field's type and within its field's limits."""
    value = PARSERS[key.field.type](text)
    if problem := limit_problem(key.field, value):
        raise ValueError(problem)
    return value


Given = dict[type, dict[str, Any]]  # owner dataclass -> {name: value} of the keys given


def parse_keys(args: Sequence[str], keys: dict[str, Key], command: str) -> tuple[Given, list[str]]:
    """({owner dataclass: {name: value}} of the keys given, once each (the others: defaults), the rest)."""
    given: Given = defaultdict(dict)
    positional: list[str] = []
    for arg in args:
        if "=" not in arg:
            positional.append(arg)
            continue
        name, text = arg.split("=", 1)
        if name not in keys:
            raise UsageError(f"unknown key {name!r} for {command}; known keys: {', '.join(keys)}")
        values = given[keys[name].owner]
        if name in values:
            raise UsageError(f"key {name!r} given twice; give each key once")
        try:
            values[name] = parse_value(keys[name], text)
        except ValueError as exc:
            raise UsageError(f"bad value {name}={text!r}: {exc}") from None
    return given, positional


def keys_only(args: Sequence[str], keys: dict[str, Key], command: str) -> Given:
    given, positional = parse_keys(args, keys, command)
    if positional:
        raise UsageError(f"{command} takes key=value arguments only, not {positional[0]!r}")
    return given


Made = TypeVar("Made")


def configured(make: Callable[..., Made], *args: Any, **kwargs: Any) -> Made:
    """make(...) of a config dataclass, its own validation errors (ValueError) as usage errors."""
    try:
        return make(*args, **kwargs)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def default_out(config: GPTConfig) -> str:
    name = "25-B" if config.inplace else "25-A"
    if config.bypass != "none":
        name += f"-{config.bypass}"
    name += "".join(f"-{s}" for s in ("relu_inplace", "exp_inplace") if getattr(config, s))
    name += "" if config.device == "cpu" else f"-{config.device}"
    return f"experiments/{name}"


class ProgressLines:
    """train()'s progress callback: "step k/n, loss, elapsed" at most once per every_s seconds."""

    def __init__(self, stream: TextIO, every_s: float, clock: Callable[[], float] = time.monotonic):
        self.stream, self.every_s, self.clock = stream, every_s, clock
        self.start = clock()
        self.next_line_at = self.start + every_s  # quiet for runs shorter than every_s

    def __call__(self, step: int, steps: int, loss: float) -> None:
        now = self.clock()
        if now < self.next_line_at or step == steps:  # the last step has the summary line
            return
        self.next_line_at = now + self.every_s
        fields = dict(step=step, steps=steps, loss=loss, elapsed=now - self.start)
        print(say("step {step}/{steps}, loss {loss:.4f}, {elapsed:.0f} s", **fields), file=self.stream, flush=True)


def progress_for(stream: TextIO) -> ProgressLines | None:
    """Progress lines on a terminal only, as git does: captured output stays the same on any machine."""
    return ProgressLines(stream, PROGRESS_EVERY_S) if stream.isatty() else None


def cmd_train(args: list[str]) -> int:
    given = keys_only(args, TRAIN_KEYS, "train")
    data = experiments.data()
    config = configured(model_config, data, **given[GPTConfig])
    settings = configured(TrainConfig, **given[TrainConfig])
    out = configured(Output, **given[Output]).out or default_out(config)
    check_writable(out)  # before any work: bad output paths write nothing
    progress = progress_for(sys.stderr)
    if settings == TrainConfig():  # one of the course's runs: minigpt.experiments keeps each once
        result = experiments.training(progress, **given[GPTConfig])
    else:
        result = train(config, settings, data, progress=progress)
    tensors = {name: getattr(result, name) for name in ("probe_logits", "grads_step0", "grads_final")}
    run = write_run(out, run_record(config, settings), result.summary(), tensors)
    if result.failure:
        for text in result.failure.warnings:
            print(f"UserWarning: {text}", file=sys.stderr)
        raised = say("backward raised at step {step}:", step=result.failure.step)
        print(raised, result.failure.error, sep="\n", file=sys.stderr)
        print(say("recorded config, forward output and error in {run}", run=run))
        return 1
    # The time goes to a terminal only (summary.json keeps it), as the progress lines do: captured
    # output, such as the reproducer's on the break page, is then the same on any machine.
    took = ""
    if sys.stdout.isatty():
        took = say(" in {seconds:.2f} s ({rate:.1f} steps/s)", seconds=result.wall_time_s, rate=result.steps_per_s)
    trained = (
        "trained {steps} steps{took}; final loss {loss:.4f}; test accuracy {accuracy:.2%}, exact rewrites {exact:.2%}"
    )
    scores = dict(loss=result.losses[-1], accuracy=result.test_accuracy[-1], exact=result.test_exact_match)
    print(say(trained, steps=settings.steps, took=took, **scores))
    print(say("recorded in {run}", run=run))
    return 0


def cmd_grad_compare(args: list[str]) -> int:
    given, positional = parse_keys(args, COMPARE_KEYS, "grad-compare")
    if len(positional) != 2:
        raise UsageError(
            "grad-compare takes two experiment directories, e.g. "
            "`minigpt grad-compare experiments/25-A experiments/25-B`"
        )
    step = configured(GradientsToCompare, **given[GradientsToCompare]).step
    comparison = compare_runs(positional[0], positional[1], step=step)
    print(f"A: {comparison.run_a}\nB: {comparison.run_b}")
    print(say("probe gradients at step {step}", step=comparison.step))
    for caveat in comparison.caveats:
        print(say("note: {caveat}", caveat=caveat))
    if comparison.rows is None:
        print(comparison.missing)
        print(say("nothing to compare"))
        return 0
    print(format_table(comparison.rows))
    print(summary_line(comparison.rows))
    figure = figure_path(comparison)
    title = say("{b} vs {a}, step {step}", b=comparison.run_b, a=comparison.run_a, step=comparison.step)
    try:
        plot_comparison(comparison.rows, figure, title, say(XLABEL))
    except OSError as exc:
        raise UsageError(f"cannot write the figure {figure}: {exc.strerror or exc}") from None
    print(say("figure: {path}", path=figure))
    return 0


def cmd_diagnose(args: list[str]) -> int:
    """One forward of the probe batch under inplace_doctor; given a script (``minigpt diagnose train.py``),
    that script under the diagnoser."""
    if args and (args[0].startswith("-") or "=" not in args[0]):
        from inplace_doctor.runner import main as diagnose_script  # only this form needs it

        return diagnose_script(args, prog="minigpt diagnose")
    from inplace_doctor import diagnose  # only this command needs it

    given = keys_only(args, DIAGNOSE_KEYS, "diagnose")
    data = build_dataset()
    config = configured(model_config, data, **given[GPTConfig])
    seed = configured(TrainConfig, **given[TrainConfig]).seed
    x, y = probe_batch(data)
    print(
        f"diagnosing one forward of the probe batch ({x.size(0)} sequences of {x.size(1)} tokens), "
        f"seed {seed}, " + ", ".join(f"{name}={getattr(config, name)}" for name in keys_of(GPTConfig))
    )
    print(diagnose(build_model(config, seed), x, y))
    return 0


def as_typed(value: Any) -> str:
    """A value as one types it after key= (true, not True)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def describe(key: Key) -> str:
    """A key's line of `minigpt help`: help; the values it takes; its default."""
    takes = allowed_values(key.field.metadata) or ("true or false" if key.field.type is bool else None)
    default = None if key.field.default is None else f"default {as_typed(key.field.default)}"
    return "; ".join(part for part in (key.field.metadata["help"], takes, default) if part)


def cmd_help(args: list[str]) -> int:
    print(__doc__.strip())
    usages = {"train": TRAIN_KEYS, "grad-compare DIR_A DIR_B": COMPARE_KEYS, "diagnose": DIAGNOSE_KEYS}
    for command, keys in usages.items():
        print(f"\n{command} keys:")
        for name, key in keys.items():
            print(f"  {name:<15} {describe(key)}")
    return 0


COMMANDS: dict[str, Callable[[list[str]], int]] = {
    "train": cmd_train,
    "grad-compare": cmd_grad_compare,
    "diagnose": cmd_diagnose,
    "help": cmd_help,
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        return cmd_help([]) if argv else _fail(USAGE)
    if (command := COMMANDS.get(argv[0])) is None:
        return _fail(f"unknown command {argv[0]!r}; commands: {', '.join(COMMANDS)}")
    try:
        words.current = words.language()
        return command(argv[1:])
    except (UsageError, ExperimentError) as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:  # Ctrl-C during a long training: one line, not a traceback
        print("minigpt: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `minigpt help | head`: the reader stopped reading, nothing is wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
    finally:
        words.current = "en"  # a caller in the same process (a test, a notebook) reads English again


def _fail(message: str) -> int:
    print(f"minigpt: error: {message}", file=sys.stderr)
    return 2
