"""``python -m minigpt.diagnose [--steps N|all] SCRIPT.py [ARGS...]``: diagnose a script as it is.

The script runs unmodified as ``__main__`` (``sys.argv`` is the script and its arguments, its
folder is first on ``sys.path``, as ``python SCRIPT.py`` would have them) under a diagnosing
session, until its first backward has run (``--steps N``: its N-th; ``all``: its end). Each
backward is examined just before it runs. Then the findings are printed, each with its fix.

If the script ends before any backward, the graphs of the tensors its global variables hold
(``loss``, ``out``, ...) are examined as if backward were about to run from them: what a
backward would have met. A function's locals are gone by then, so a script that keeps its
tensors inside functions has nothing left to examine, and the report says so.

Exit status: 0 nothing found, 1 something found (a write over a saved tensor, or an in-place
write PyTorch refused), 2 bad input (no such file, not a .py file, a script that does not
compile, or one that fails with another error, or exits with a non-zero status, before it
gives anything to report). Bad input is one ``minigpt: error: ...`` line on standard error.
"""

import os
import sys
import traceback
import types
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence

import torch

from .diagnoser import Report, report_of
from .location import display_path, is_internal
from .session import BackwardPass, Session, is_inplace_error, is_refused_write

PROG = "python -m minigpt.diagnose"
USAGE = "[--steps N|all] SCRIPT.py [ARGS...]"


class UsageError(Exception):
    """Bad input: one line, exit status 2."""


class StopScript(BaseException):
    """Raised out of the N-th backward to end the script there (not an Exception: a script's
    ``except Exception`` must not swallow it)."""


@dataclass
class Options:
    path: str
    args: List[str]
    steps: Optional[int]  # backward passes to run; None: to the end


def parse(argv: Sequence[str]) -> Options:
    steps: Optional[int] = 1
    argv = list(argv)
    while argv and argv[0].startswith("-"):
        option = argv.pop(0)
        if option == "--steps" or option.startswith("--steps="):
            value = option.split("=", 1)[1] if "=" in option else (argv.pop(0) if argv else "")
            if value == "all":
                steps = None
            elif value.isdigit() and int(value) >= 1:
                steps = int(value)
            else:
                raise UsageError(f"--steps takes a number of backward passes (1 or more) or all, not {value!r}")
        elif option == "--":
            break
        else:
            raise UsageError(f"unknown option {option!r}; usage: {PROG} {USAGE}")
    if not argv:
        raise UsageError(f"no script given; usage: {PROG} {USAGE}")
    path, args = argv[0], argv[1:]
    if not os.path.exists(path):
        if path.endswith(".py"):
            raise UsageError(f"no such file: {path!r}")
        raise UsageError(f"{path!r} is neither key=value nor a Python script (no such file)")
    if os.path.isdir(path):
        raise UsageError(f"{path!r} is a folder, not a Python script (.py)")
    if not path.endswith(".py"):
        raise UsageError(f"{path!r} is not a Python script (.py)")
    return Options(path, args, steps)


@dataclass
class Outcome:
    report: Report
    status: int  # the exit status
    failure: Optional[str] = None  # how the script failed, when it did with another error
    namespace: dict = field(default_factory=dict)  # the script's global variables, as it left them


def _where(error: BaseException, path: str) -> str:
    """ "script.py:12" of the innermost user frame of the error's traceback ("" if none)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if not is_internal(f.filename)]
    in_script = [f for f in frames if os.path.abspath(f.filename) == os.path.abspath(path)]
    frame = (frames or in_script or [None])[-1]  # the innermost frame of the user's own code
    return f"{display_path(frame.filename)}:{frame.lineno}" if frame is not None else ""


def _left_tensors(namespace: dict) -> List[torch.Tensor]:
    """The tensors with a graph among a finished script's global variables (and their tuples,
    lists and dicts), each once."""
    from .memory import tensors_in

    seen, found = set(), []
    for name, value in namespace.items():
        if name.startswith("__"):
            continue
        for tensor in tensors_in(value) if isinstance(value, (torch.Tensor, tuple, list, dict)) else ():
            if tensor.grad_fn is not None and id(tensor) not in seen:
                seen.add(id(tensor))
                found.append(tensor)
    return found


def compiled(options: Options) -> types.CodeType:
    path = os.path.abspath(options.path)
    try:
        with open(path, "rb") as source:
            return compile(source.read(), path, "exec")
    except (OSError, SyntaxError, ValueError) as error:
        raise UsageError(f"cannot compile {options.path}: {type(error).__name__}: {error}") from None


def run_script(options: Options, code: Optional[types.CodeType] = None) -> Outcome:
    """Run the script under a session, as ``__main__``; restores sys.argv, sys.path and __main__."""
    path = os.path.abspath(options.path)
    code = compiled(options) if code is None else code
    session = Session(track_builds=True)
    steps = options.steps

    def stop_after_enough(this_pass: BackwardPass) -> None:
        if steps is not None and this_pass.number is not None and this_pass.number >= steps:
            raise StopScript()

    session.on_pass = stop_after_enough
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __builtins__=__builtins__, __spec__=None, __cached__=None)
    saved = sys.argv, list(sys.path), sys.modules.get("__main__")
    sys.argv = [options.path, *options.args]
    sys.path.insert(0, os.path.dirname(path))
    sys.modules["__main__"] = module
    failure: Optional[BaseException] = None
    ended = "end"
    try:
        with session:
            try:
                exec(code, module.__dict__)
            except StopScript:
                ended = "stopped"
            except SystemExit as exit_:
                if exit_.code not in (None, 0):
                    failure = exit_
            except KeyboardInterrupt:
                raise
            except BaseException as error:  # the script's own error: reported, not a traceback
                failure = error
            numbered = [p for p in session.passes if p.number is not None]
            left = _left_tensors(module.__dict__) if not numbered and failure is None else []
            if left:
                session.examine(left)
    finally:
        sys.argv, sys.path[:], restored = saved[0], saved[1], saved[2]
        if restored is not None:
            sys.modules["__main__"] = restored
    report = report_of(session)
    numbered = [p for p in session.passes if p.number is not None]
    script = display_path(options.path)
    if ended == "stopped":
        report.notes.append(f"stopped {script} after backward {len(numbered)}"
                            + ("; a write that breaks only a later backward (an optimizer step between a forward "
                               "and a second backward) shows with --steps 2 or more" if len(numbered) == 1 and
                               not report.findings else ""))
    elif not numbered and failure is None:
        shown = [name for name, value in module.__dict__.items() if not name.startswith("__")
                 and isinstance(value, torch.Tensor) and value.grad_fn is not None]
        report.notes.append(f"{script} ended before any backward; " + (
            f"examined the graphs of the tensors its global variables hold ({', '.join(shown[:6])}"
            f"{', ...' if len(shown) > 6 else ''}) as if backward were about to run from them" if report.passes else
            "none of its global variables holds a tensor with a graph, so there was nothing to examine"))
    status = 1 if report.findings else 0
    failure_line = None
    if failure is not None:
        if isinstance(failure, SystemExit):
            failure_line = f"{script} exited with status {failure.code}"
        else:
            where = _where(failure, options.path)
            text = str(failure).strip().splitlines()[0] if str(failure).strip() else ""
            failure_line = f"{script} raised {type(failure).__name__}" + (f": {text}" if text else "") + \
                (f" ({where})" if where else "")
        if is_inplace_error(failure) and session.error is failure:
            failure_line = None  # the finding explains it
            status = 1
        elif is_refused_write(failure):
            report.refused.append(
                f"PyTorch refused an in-place write at {_where(failure, options.path)}: {text}\n"
                "  fix:        write out of place (x = x + 1), or, to change a parameter, inside torch.no_grad()")
            failure_line, status = None, 1
        elif is_inplace_error(failure):  # raised where no watched backward was running
            report.notes.append(f"{failure_line}, outside any backward the diagnoser watched")
            failure_line, status = None, 1
        elif not report.findings:
            status = 2
            if not numbered:
                failure_line = failure_line.replace(" raised ", " failed before its first backward: ", 1) \
                    if " raised " in failure_line else f"{failure_line} before its first backward"
        else:
            report.notes.append(f"then {failure_line}")
    return Outcome(report, status, failure_line, module.__dict__)


def main(argv: Optional[Sequence[str]] = None, prog: str = PROG) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["-h"], ["--help"]):
        print(f"usage: {prog} {USAGE}\n\n{__doc__.split(chr(10) + chr(10), 1)[1].strip()}")
        return 0
    try:
        options = parse(argv)
        code = compiled(options)
        print(f"minigpt diagnose: running {display_path(options.path)} "
              + ("to its end" if options.steps is None else
                 "until its first backward" if options.steps == 1 else f"for {options.steps} backward passes"),
              flush=True)
        outcome = run_script(options, code)
    except UsageError as error:
        print(f"minigpt: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("minigpt: interrupted", file=sys.stderr)
        return 130
    sys.stdout.flush()
    if outcome.status == 2 and outcome.failure and not outcome.report.passes:
        print(f"minigpt: error: {outcome.failure}", file=sys.stderr)
        return 2
    print(outcome.report)
    if outcome.failure:
        print(f"minigpt: error: {outcome.failure}", file=sys.stderr)
    return outcome.status

