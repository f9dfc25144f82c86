"""Command line: ``minigpt COMMAND key=value ...`` (the phase-25 reproducer).

    minigpt train inplace=false
    minigpt train inplace=true detect_anomaly=true
    minigpt train inplace=true bypass=hooks
    minigpt grad-compare experiments/25-A experiments/25-B
    minigpt diagnose inplace=true bypass=hooks
"""

import sys
from dataclasses import dataclass

from .experiment import ExperimentError
from .model import BYPASSES

USAGE = "usage: minigpt {train,grad-compare,diagnose} [key=value ...]; see `minigpt help`"


class UsageError(Exception):
    """Bad input: printed as one line, exit status 2."""


def parse_bool(text):
    value = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}.get(text.lower())
    if value is None:
        raise ValueError("expected true or false")
    return value


def parse_count(minimum):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise ValueError("expected a whole number") from None
        if value < minimum:
            raise ValueError(f"must be >= {minimum}")
        return value

    return parse


def parse_choice(*choices):
    def parse(text):
        if text not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return text

    return parse


@dataclass
class Key:
    parse: object
    default: object
    help: str


TRAIN_KEYS = {
    "inplace": Key(parse_bool, False, "residual written in place, h.add_(...) (the break)"),
    "detect_anomaly": Key(parse_bool, False, "run under torch.autograd.set_detect_anomaly(True)"),
    "bypass": Key(parse_choice(*BYPASSES), "none",
                  "how the in-place residual escapes the version check: none|hooks|data|ctx"),
    "relu_inplace": Key(parse_bool, False, "F.relu_ in the feed-forward (safe)"),
    "exp_inplace": Key(parse_bool, False, "exp_ in the attention softmax (safe)"),
    "steps": Key(parse_count(1), None, "training steps (default 150)"),
    "seed": Key(parse_count(0), None, "random seed (default 0)"),
    "out": Key(str, None, "experiment directory (default experiments/25-A, 25-B, 25-B-<bypass>)"),
}
COMPARE_KEYS = {
    "step": Key(parse_choice("0", "final"), "0", "which probe gradients: 0 (same weights) or final"),
}


def parse_keys(args, keys, command):
    values = {name: key.default for name, key in keys.items()}
    positional = []
    for arg in args:
        if "=" not in arg:
            positional.append(arg)
            continue
        name, text = arg.split("=", 1)
        if name not in keys:
            raise UsageError(f"unknown key {name!r} for {command}; known keys: {', '.join(keys)}")
        try:
            values[name] = keys[name].parse(text)
        except ValueError as exc:
            raise UsageError(f"bad value {name}={text!r}: {exc}") from None
    return values, positional


def default_out(values):
    name = "25-B" if values["inplace"] else "25-A"
    if values["bypass"] != "none":
        name += f"-{values['bypass']}"
    name += "".join(f"-{s}" for s in ("relu_inplace", "exp_inplace") if values[s])
    return f"experiments/{name}"


def cmd_train(args):
    values, positional = parse_keys(args, TRAIN_KEYS, "train")
    if positional:
        raise UsageError(f"train takes key=value arguments only, not {positional[0]!r}")
    if values["bypass"] != "none" and not values["inplace"]:
        raise UsageError(f"bypass={values['bypass']} needs the in-place residual: add inplace=true")
    out = values["out"] or default_out(values)

    from . import train as training
    from .data import build_dataset
    from .experiment import check_writable, write_run

    check_writable(out)  # before any work: bad output paths write nothing
    data = build_dataset()
    config = training.model_config(data, **{k: values[k] for k in
                                            ("inplace", "bypass", "relu_inplace", "exp_inplace")})
    settings = training.TrainConfig(detect_anomaly=values["detect_anomaly"])
    for name in ("steps", "seed"):
        if values[name] is not None:
            setattr(settings, name, values[name])
    result = training.train(config, settings, data)
    tensors = {"probe_logits": result.probe_logits, "grads_step0": result.grads_step0,
               "grads_final": result.grads_final}
    run = write_run(out, training.run_record(config, settings), result.summary(), tensors)
    if result.failure:
        for text in result.failure.warnings:
            print(f"UserWarning: {text}", file=sys.stderr)
        print(f"backward raised at step {result.failure.step}:\n{result.failure.error}", file=sys.stderr)
        print(f"recorded config, forward output and error in {run}")
        return 1
    print(f"trained {settings.steps} steps in {result.wall_time_s:.2f} s ({result.steps_per_s:.1f} steps/s); "
          f"final loss {result.losses[-1]:.4f}; test accuracy {result.test_accuracy[-1]:.2%}, "
          f"exact rewrites {result.test_exact_match:.2%}")
    print(f"recorded in {run}")
    return 0


def cmd_grad_compare(args):
    values, positional = parse_keys(args, COMPARE_KEYS, "grad-compare")
    if len(positional) != 2:
        raise UsageError("grad-compare takes two experiment directories, e.g. "
                         "`minigpt grad-compare experiments/25-A experiments/25-B`")
    from .compare import compare_runs, figure_path, format_table, plot_comparison, summary_line

    comparison = compare_runs(*positional, step=values["step"])
    print(f"A: {comparison.run_a}\nB: {comparison.run_b}\nprobe gradients at step {comparison.step}")
    for caveat in comparison.caveats:
        print(f"note: {caveat}")
    if comparison.rows is None:
        print(comparison.missing)
        print("nothing to compare")
        return 0
    print(format_table(comparison.rows))
    print(summary_line(comparison.rows))
    figure = plot_comparison(comparison.rows, figure_path(comparison),
                             f"{comparison.run_b} vs {comparison.run_a}, step {comparison.step}")
    print(f"figure: {figure}")
    return 0


DIAGNOSE_KEYS = {name: TRAIN_KEYS[name] for name in ("inplace", "bypass", "relu_inplace", "exp_inplace", "seed")}


def cmd_diagnose(args):
    """One forward of the probe batch under minigpt.diagnose: which in-place write overwrote what."""
    values, positional = parse_keys(args, DIAGNOSE_KEYS, "diagnose")
    if positional:
        raise UsageError(f"diagnose takes key=value arguments only, not {positional[0]!r}")
    from .data import build_dataset, probe_batch
    from .diagnose import diagnose
    from .train import TrainConfig, build_model, model_config

    switches = {name: values[name] for name in ("inplace", "bypass", "relu_inplace", "exp_inplace")}
    data = build_dataset()
    try:
        config = model_config(data, **switches)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    seed = TrainConfig().seed if values["seed"] is None else values["seed"]
    x, y = probe_batch(data)
    print(f"diagnosing one forward of the probe batch ({x.size(0)} sequences of {x.size(1)} tokens), "
          f"seed {seed}, " + ", ".join(f"{name}={value}" for name, value in switches.items()))
    print(diagnose(build_model(config, seed), x, y))
    return 0


def cmd_help(args):
    print(__doc__.strip())
    for command, keys in (("train", TRAIN_KEYS), ("grad-compare DIR_A DIR_B", COMPARE_KEYS),
                          ("diagnose", DIAGNOSE_KEYS)):
        print(f"\n{command} keys:")
        for name, key in keys.items():
            print(f"  {name:<15} {key.help}")
    return 0


COMMANDS = {"train": cmd_train, "grad-compare": cmd_grad_compare, "diagnose": cmd_diagnose, "help": cmd_help}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        return cmd_help([]) if argv else _fail(USAGE)
    command = COMMANDS.get(argv[0])
    if command is None:
        return _fail(f"unknown command {argv[0]!r}; commands: {', '.join(COMMANDS)}")
    try:
        return command(argv[1:])
    except (UsageError, ExperimentError) as exc:
        return _fail(str(exc))


def _fail(message):
    print(f"minigpt: error: {message}", file=sys.stderr)
    return 2
