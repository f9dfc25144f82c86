"""``python -m inplace_doctor [--steps N|all] SCRIPT.py [ARGS...]``: diagnose a script as it is.

The script runs unmodified as ``__main__`` (its ``sys.argv`` and ``sys.path`` as ``python SCRIPT.py``
would have them) under a diagnosing session, until the first backward that raises or has a
finding, or its end, or 10 backward passes (``--steps N``: N backward passes; ``all``: its end). So
a write that breaks only a later backward (an optimizer step between a GAN's two losses, an RNN
state carried across a step) is found without options. A gradient taken with ``create_graph=True``
(a gradient penalty) is examined too, but is not counted as a step.

When the script ends, the graphs it left alive that no backward examined (``loss`` in a global, an
output kept on an object) are examined as if backward were about to run from them; a function's
locals are gone by then, and their graphs with them.

Its exit statuses are README's (The command): 0 nothing found, 1 found, 2 bad input or a failure.
"""

import os
import signal
import sys
import threading
import traceback
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from .diagnoser import Report, report_of
from .failure import DiagnoserFailure, user_traceback
from .findings import count, listed
from .location import at, display_path, is_internal
from .session import BackwardPass, Session, is_inplace_error

PROG = "python -m inplace_doctor"
USAGE = "[--steps N|all] SCRIPT.py [ARGS...]"
HELP = """\
Run a PyTorch script as it is and name the in-place write that breaks its backward pass, loudly
or silently: the op, the line that wrote it, the saved tensor it overwrote, and the fix.

options:
  --steps N      run N backward passes, then report
  --steps all    run the script to its end, then report
  -h, --help     show this help and exit
  --version      show the version and exit

By default the script runs until its first backward that raises or has a finding, or its end, or
{cap} backward passes. Each backward is examined just before it runs, then runs as it would
without the diagnoser.

exit status: 0 nothing found; 1 something found; 2 bad input, the script's own error while nothing
was found, or the diagnoser's own failure.

In Python: inplace_doctor.diagnose(fn) and `with inplace_doctor.watch():`. In a notebook:
%load_ext inplace_doctor, then %%inplace_doctor. In pytest: pytest --inplace-doctor."""
DEFAULT_CAP = 10  # backward passes run by default when none raises or has a finding


class UsageError(Exception):
    """Bad input: one line, exit status 2."""


class StopScript(BaseException):
    """Raised out of the N-th backward to end the script there (not an Exception: a script's
    ``except Exception`` must not swallow it)."""


@dataclass
class Options:
    path: str
    args: list[str]
    steps: int | None  # backward passes to run; None: to the end
    until_finding: bool = False  # stop at the first backward with a finding (the default)


def parse(argv: Sequence[str], prog: str = PROG) -> Options:
    """The options of the command line; UsageError for bad input."""
    steps, until_finding, argv = parse_steps(argv, prog)
    if not argv:
        raise UsageError(f"no script given; usage: {prog} {USAGE}")
    path, args = argv[0], argv[1:]
    if not os.path.exists(path):
        raise UsageError(f"no such file: {path!r}")
    if os.path.isdir(path):
        raise UsageError(f"{path!r} is a folder, not a Python script (.py)")
    if not path.endswith(".py"):
        raise UsageError(f"{path!r} is not a Python script (.py)")
    return Options(path, args, steps, until_finding)


def parse_steps(argv: Sequence[str], prog: str = PROG, usage: str = USAGE) -> "tuple[int | None, bool, list[str]]":
    """(steps, until_finding, the arguments after the options) from the leading options."""
    steps: int | None = DEFAULT_CAP
    until_finding = True
    argv = list(argv)
    while argv and argv[0].startswith("-"):
        option = argv.pop(0)
        if option == "--steps" or option.startswith("--steps="):
            value = option.split("=", 1)[1] if "=" in option else (argv.pop(0) if argv else "")
            until_finding = False
            if value == "all":
                steps = None
            elif value.isdigit() and int(value) >= 1:
                steps = int(value)
            else:
                raise UsageError(f"--steps takes a number of backward passes (1 or more) or all, not {value!r}")
        elif option == "--":
            break
        else:
            raise UsageError(f"unknown option {option!r}; usage: {prog} {usage}")
    return steps, until_finding, argv


def compiled(options: Options) -> types.CodeType:
    """The script's code; UsageError when it cannot be read or does not compile."""
    path = os.path.abspath(options.path)
    try:
        with open(path, "rb") as source:
            return compile(source.read(), path, "exec")
    except (OSError, SyntaxError, ValueError) as error:
        raise UsageError(f"cannot compile {options.path}: {type(error).__name__}: {error}") from None


@dataclass
class Outcome:
    report: Report
    status: int  # the exit status
    failure: str | None = None  # how the script failed, when it did with an error of its own
    namespace: dict[str, Any] = field(default_factory=dict)  # the script's global variables, as it left them
    internal: str | None = None  # the diagnoser's own failure, when it failed (the script was stopped)
    error: BaseException | None = None  # the exception the code ended with, if it ended with one


def run_script(options: Options, code: types.CodeType | None = None) -> Outcome:
    """Run the script under a session, as ``__main__``; restores sys.argv, sys.path and __main__."""
    path = os.path.abspath(options.path)
    code = compiled(options) if code is None else code
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __builtins__=__builtins__, __spec__=None, __cached__=None)
    saved_argv, saved_path, saved_main = sys.argv, list(sys.path), sys.modules.get("__main__")
    sys.argv = [options.path, *options.args]
    sys.path.insert(0, os.path.dirname(path))
    sys.modules["__main__"] = module
    try:
        return run_code(code, module.__dict__, options)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main


def run_code(code: types.CodeType, namespace: dict[str, Any], options: Options) -> Outcome:
    """Run code in namespace under a session (a script's, or a notebook cell's: options.path names
    it), until what options say; the outcome: the report and the exit status."""
    __tracebackhide__ = True  # IPython and pytest leave this frame out of the code's own traceback
    session = Session()

    def stop_after_enough(this_pass: BackwardPass) -> None:
        if options.until_finding and this_pass.findings and not this_pass.create_graph:
            raise StopScript()
        if options.steps is not None and len(_steps(session.passes)) >= options.steps:
            raise StopScript()

    def stop_at_the_error(this_pass: BackwardPass, error: BaseException) -> None:
        if options.until_finding:  # stop here, even if the script would catch the error and go on
            raise StopScript() from error

    session.on_pass = stop_after_enough
    session.on_raise = stop_at_the_error
    failure: BaseException | None = None
    raised: BaseException | None = None  # the in-place error the code was stopped at
    stopped = False
    restore_sigterm = _stop_on_sigterm() if rank_of_world() is not None else None
    try:
        with session:
            try:
                exec(code, namespace)
            except StopScript as stop:
                stopped, raised = True, stop.__cause__
                if raised is not None:  # its traceback from the program's frames down, as uncaught
                    raised.__traceback__ = _joined(stop.__traceback__, raised.__traceback__)
            except SystemExit as exit_:
                if exit_.code not in (None, 0):
                    failure = exit_
            except (KeyboardInterrupt, DiagnoserFailure):
                raise
            except BaseException as error:  # the script's own error: reported, not a traceback
                failure = error
            if failure is None and not stopped:
                if left := session.left_graphs():
                    session.examine(left, left=True)
            if failure is not None and session.error is not failure:
                session.explain_error(failure)
    except DiagnoserFailure as internal:
        return Outcome(report_of(session), 2, None, namespace, internal=internal.line())
    finally:
        if restore_sigterm is not None:
            restore_sigterm()
    report = report_of(session)
    _note_how_it_ended(report, options, namespace, stopped, failure is None)
    _note_left_graphs(report, options)
    status = 1 if report.findings or report.raised else 0
    raising = next((p for p in report.passes if p.raised), None)
    if raising is not None and failure is not session.error and not stopped:
        report.notes.append(
            f"PyTorch raised its in-place error at backward {raising.number}, and the script caught it and went on"
        )
    if failure is None:
        return Outcome(report, status, None, namespace, error=raised)
    status, failure_line = _judge_failure(failure, session, report, options.path)
    return Outcome(report, status, failure_line, namespace, error=failure)


def _joined(outer: types.TracebackType | None, inner: types.TracebackType | None) -> types.TracebackType | None:
    """The outer traceback's entries down to the frame where the inner one starts, then the inner
    one's: an error caught in a frame (a backward) and stopped at, told as if it went on up."""
    entries = []
    tb = outer
    while tb is not None and inner is not None and tb.tb_frame is not inner.tb_frame:
        entries.append((tb.tb_frame, tb.tb_lasti, tb.tb_lineno))
        tb = tb.tb_next
    if tb is None:
        return inner
    tb = inner
    while tb is not None:
        entries.append((tb.tb_frame, tb.tb_lasti, tb.tb_lineno))
        tb = tb.tb_next
    joined = None
    for frame, lasti, lineno in reversed(entries):
        joined = types.TracebackType(joined, frame, lasti, lineno)
    return joined


def rank_of_world() -> "tuple[int, int] | None":
    """(rank, world size) of a process torchrun started for a world of several; None otherwise."""
    try:
        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    except (KeyError, ValueError):
        return None
    return (rank, world) if world > 1 else None


def _stop_on_sigterm() -> Any | None:
    """Under torchrun, a rank that ends with a non-zero status (a finding) makes torchrun send
    SIGTERM to the others: each stops where it is, as at its last backward, and still reports."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(signum: int, frame: Any) -> None:
        raise StopScript()

    previous = signal.signal(signal.SIGTERM, stop)
    return lambda: signal.signal(signal.SIGTERM, previous)


def _steps(passes: list[BackwardPass]) -> list[BackwardPass]:
    """The backward passes that count as training steps: not a gradient made part of a larger
    graph (``create_graph=True``: a gradient penalty, an inner loop), which the step goes on after."""
    return [p for p in passes if p.number is not None and not p.create_graph]


def _note_how_it_ended(
    report: Report, options: Options, namespace: dict[str, Any], stopped: bool, ended_well: bool
) -> None:
    script = display_path(options.path)
    steps = _steps(report.passes)
    if stopped and options.until_finding and report.findings:
        report.notes.append(f"stopped {script} at the first backward with a finding")
    elif stopped:
        cap = " (the default cap; --steps N or --steps all runs on)" if options.until_finding else ""
        report.notes.append(f"stopped {script} after backward {len(steps)}{cap}")
    elif not steps and ended_well:
        held = [
            name
            for name, value in namespace.items()
            if not name.startswith("__") and isinstance(value, torch.Tensor) and value.grad_fn is not None
        ]
        report.notes.append(
            f"{script} ended before any backward; "
            + (
                "examined the graphs it left"
                + (f" (its global variables {listed(held, 6)} hold some)" if held else "")
                + " as if backward were about to run from them"
                if report.passes
                else "no graph it left held a tensor saved for backward, so there was nothing to examine"
            )
        )


def _note_left_graphs(report: Report, options: Options) -> None:
    """What a backward from the graphs the program left alive would have met is a note, not a
    finding: no backward read them, so no gradient was wrong (PyTorch raises nothing either)."""
    if not (left := [f for f in report.findings if f.left]):
        return
    report.findings = [f for f in report.findings if not f.left]
    first = left[0]
    where = (
        f", at {at(first.write.location.path, first.write.location.line)}"
        if first.write and first.write.location
        else ""
    )
    report.notes.append(
        f"{display_path(options.path)} left graphs alive that no backward read: a backward from them would "
        f"have met {count(len(left) + sum(f.repeats for f in left), 'overwritten saved tensor')} "
        f"({first.headline()}{where}). "
        "None ran, so no gradient is wrong; if one was meant to, run it before that write"
    )


def _judge_failure(failure: BaseException, session: Session, report: Report, path: str) -> "tuple[int, str | None]":
    """(exit status, the error line to print or None) for a script that failed."""
    script = display_path(path)
    if is_inplace_error(failure, session):
        return 1, None  # a finding explains it
    if isinstance(failure, SystemExit):
        line = f"{script} exited with status {failure.code}"
    else:
        text = str(failure).strip().splitlines()[0] if str(failure).strip() else ""
        # the innermost frame of the traceback in the user's own code
        frames = [f for f in traceback.extract_tb(failure.__traceback__) if not is_internal(f.filename)]
        where = at(frames[-1].filename, frames[-1].lineno) if frames else ""
        line = (
            f"{script} raised {type(failure).__name__}"
            + (f": {text}" if text else "")
            + (f" ({where})" if where else "")
        )
    # A safety net read from PyTorch's words: an in-place error that no record of ours explains
    # (a graph built where the session could not see it) must still never pass for the script's own.
    if is_inplace_error(failure):
        report.notes.append(f"{line}: PyTorch's in-place error, where no backward the diagnoser examined explains it")
        return 1, None
    if "saved tensor hooks" in str(failure):
        line += (
            "; the diagnoser records saved tensors through saved-tensor hooks, which this refuses "
            "(torch.func transforms do): diagnose the part of the program without it"
        )
    if report.findings:
        report.notes.append(f"then {line}")
        return 1, None
    if not _steps(report.passes):
        line = (
            line.replace(" raised ", " failed before its first backward: ", 1)
            if " raised " in line
            else f"{line} before its first backward"
        )
    return 2, line


def names(prog: str) -> "tuple[str, str]":
    """(the prefix of error lines, the prefix of the first line) for the command's name:
    "python -m inplace_doctor" -> ("inplace_doctor", "inplace_doctor"), "minigpt diagnose" ->
    ("minigpt", "minigpt diagnose")."""
    words = prog.split()
    short, long = (words[2], words[2]) if words[:2] == ["python", "-m"] and len(words) > 2 else (words[0], prog)
    world = rank_of_world()
    if world is not None:  # several ranks print to one terminal: each line says whose it is
        short, long = f"{short} (rank {world[0]} of {world[1]})", f"{long} (rank {world[0]} of {world[1]})"
    return short, long


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """The command: parse, run the script, print the report; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    short, long = names(prog)
    if argv[:1] in (["-h"], ["--help"]):
        print(f"usage: {prog} {USAGE}\n\n{HELP.format(cap=DEFAULT_CAP)}")
        return 0
    if argv[:1] == ["--version"]:
        from . import __version__

        print(f"inplace-doctor {__version__} (torch {torch.__version__})")
        return 0
    try:
        options = parse(argv, prog)
        code = compiled(options)
        print(f"{long}: running {display_path(options.path)} {running(options)}", flush=True)
        outcome = run_script(options, code)
    except UsageError as error:
        print(f"{short}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{short}: interrupted", file=sys.stderr)
        return 130
    return print_outcome(outcome, short, long)


def running(options: Options) -> str:
    """How long the program runs under the diagnoser, in words."""
    if options.steps is None:
        return "to its end"
    if options.until_finding:
        return f"until a backward raises or has a finding (at most {options.steps} backward passes)"
    return "until its first backward" if options.steps == 1 else f"for {options.steps} backward passes"


def print_outcome(outcome: Outcome, short: str, long: str) -> int:
    """Print the report (standard output) and the failure line (standard error); the exit status."""
    sys.stdout.flush()
    if outcome.internal is not None:
        print(f"{short}: error: {outcome.internal}", file=sys.stderr)
        return 2
    if outcome.status != 2 or outcome.report.passes:  # else nothing to report but the failure
        print(f"{long}: report\n{outcome.report}" if rank_of_world() is not None else outcome.report, flush=True)
    if outcome.failure:
        if outcome.error is not None and not isinstance(outcome.error, SystemExit):  # its frames only
            print(user_traceback(outcome.error), end="", file=sys.stderr)
        print(f"{short}: error: {outcome.failure}", file=sys.stderr)
    return outcome.status
