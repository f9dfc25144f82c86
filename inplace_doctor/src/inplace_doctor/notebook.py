"""The notebook magic: ``%load_ext inplace_doctor``, then a cell that starts with
``%%inplace_doctor [--steps N|all]`` runs under the diagnoser, as the command runs a script (HELP).

The report is the command's text, each line of the cell named as IPython names it in a traceback
("Cell In[3], line 5"); a cell whose code raised then raises that error, its traceback kept, so Run
All stops there. Bad options fail the cell with one line (IPython's UsageError). IPython is
imported by the notebook, never by the diagnoser: this module is only loaded by ``%load_ext``.
"""

import re
import sys
from typing import Any

from IPython.core.error import UsageError as CellUsageError

from .location import name_cells
from .runner import DEFAULT_CAP, Options, UsageError, names, parse_steps, print_outcome, run_code, running

MAGIC = "inplace_doctor"
PROG = f"%%{MAGIC}"
USAGE = "[--steps N|all] (then the cell's code)"


HELP = f"""\
%%inplace_doctor [--steps N|all]
(then the cell's code)

Run the cell under inplace_doctor and report the in-place writes that overwrote a tensor a
backward pass saved: the op, the cell line that wrote it, the saved tensor, the fix.

The cell runs in the notebook's namespace until its first backward that raises or has a finding,
or its end, or {DEFAULT_CAP} backward passes (--steps N: N backward passes; --steps all: to its
end). The report comes first; a cell whose code raised then raises that error, so the cell fails
as it would without the magic. Load it with %load_ext inplace_doctor."""


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext inplace_doctor``: register the magic (``%%inplace_doctor?`` shows HELP)."""

    def inplace_doctor(line: str, cell: str | None = None) -> None:
        __tracebackhide__ = True  # the cell's traceback shows the cell's frames, not the magic's
        if cell is None:  # %inplace_doctor: the cell form is the only one
            raise CellUsageError(f"{PROG} goes on the first line of a cell: {PROG} {USAGE}")
        run_cell(ipython, line, cell)

    inplace_doctor.__doc__ = HELP
    ipython.register_magic_function(inplace_doctor, "line_cell", MAGIC)

    def cell_name(path: str) -> str | None:
        named = ipython.compile.format_code_name(path)
        return " ".join(named) if named else None

    name_cells(cell_name)  # every cell's lines as IPython names them, the magic's and earlier cells'


def run_cell(ipython: Any, line: str, cell: str) -> int:
    """Diagnose the cell's code in the notebook's namespace; print the report; re-raise the error
    the code raised. The command's exit status otherwise; bad options and the diagnoser's own
    failure fail the cell with one line."""
    __tracebackhide__ = True
    short, long = names(PROG)
    try:
        steps, until_finding, rest = parse_steps(line.split(), PROG, USAGE)
        if rest:
            raise UsageError(f"{PROG} takes options only, not {' '.join(rest)!r}; usage: {PROG} {USAGE}")
    except UsageError as error:
        raise CellUsageError(f"{short}: {error}") from None
    number = cell_number(ipython)
    source = "\n" + cell  # line 1 is the magic's line: the cell's code keeps the cell's line numbers
    filename = ipython.compile.cache(source, number)  # IPython names it "Cell In[N]" in tracebacks
    name = f"Cell In[{number}]"
    try:
        code = compile(source, filename, "exec")
    except SyntaxError as error:
        raise CellUsageError(
            f"{short}: cannot compile {name}: SyntaxError: {error.msg} (line {error.lineno})"
        ) from None
    options = Options(filename, [], steps, until_finding)
    print(f"{long}: running {name} {running(options)}", flush=True)
    outcome = run_code(code, ipython.user_ns, options)
    if outcome.internal is not None:
        raise CellUsageError(f"{short}: {outcome.internal}")
    raised = outcome.error
    if raised is None or isinstance(raised, SystemExit):
        return print_outcome(outcome, short, long)
    if outcome.report.passes or outcome.status != 2:  # a report to show first: the error's traceback follows
        outcome.failure = None
        print_outcome(outcome, short, long)
    raise raised


def cell_number(ipython: Any) -> int:
    """The N of the running cell's "In[N]", as IPython names it in a traceback: read from the
    frame of the cell that called the magic (IPython's count moves before or after a cell runs,
    by release)."""
    frame = sys._getframe(1)
    while frame is not None:
        named = ipython.compile.format_code_name(frame.f_code.co_filename)
        found = re.fullmatch(r"In\[(\d+)\]", named[1]) if named else None
        if found:
            return int(found.group(1))
        frame = frame.f_back  # type: ignore[assignment]
    return int(ipython.execution_count)
