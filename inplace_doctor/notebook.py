"""The notebook magic: ``%load_ext inplace_doctor``, then a cell that starts with
``%%inplace_doctor [--steps N|all]`` runs under the diagnoser, as the command runs a script.

The cell runs in the notebook's namespace (its variables stay, as in any cell), until its first
backward that raises or has a finding, or its end, or 10 backward passes; then the report is
printed, the same text as ``python -m inplace_doctor``'s, each line of the cell named as IPython
names it in a traceback ("Cell In[3], line 5"). What the command would print on standard error
(the cell's own error, bad options) is printed there. IPython is imported by the notebook, never
by the diagnoser: this module is only loaded by ``%load_ext``.
"""

import re
import sys
from typing import Any

from .location import name_cells
from .runner import Options, UsageError, names, parse_steps, print_outcome, run_code, running

MAGIC = "inplace_doctor"
PROG = f"%%{MAGIC}"
USAGE = "[--steps N|all] (then the cell's code)"


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext inplace_doctor``: register the cell magic."""

    def inplace_doctor(line: str, cell: str) -> None:
        run_cell(ipython, line, cell)

    def cell_name(path: str) -> str | None:
        named = ipython.compile.format_code_name(path)
        return " ".join(named) if named else None

    ipython.register_magic_function(inplace_doctor, "cell", MAGIC)
    name_cells(cell_name)  # every cell's lines as IPython names them, the magic's and earlier cells'


def run_cell(ipython: Any, line: str, cell: str) -> int:
    """Diagnose the cell's code in the notebook's namespace; print the report; the command's exit status."""
    short, long = names(PROG)
    try:
        steps, until_finding, rest = parse_steps(line.split(), PROG, USAGE)
        if rest:
            raise UsageError(f"{PROG} takes options only, not {' '.join(rest)!r}; usage: {PROG} {USAGE}")
    except UsageError as error:
        print(f"{short}: error: {error}", file=sys.stderr)
        return 2
    number = cell_number(ipython)
    source = "\n" + cell  # line 1 is the magic's line: the cell's code keeps the cell's line numbers
    filename = ipython.compile.cache(source, number)  # IPython names it "Cell In[N]" in tracebacks
    name = f"Cell In[{number}]"
    try:
        code = compile(source, filename, "exec")
    except SyntaxError as error:
        print(f"{short}: error: cannot compile {name}: SyntaxError: {error.msg} (line {error.lineno})", file=sys.stderr)
        return 2
    options = Options(filename, [], steps, until_finding)
    print(f"{long}: running {name} {running(options)}", flush=True)
    return print_outcome(run_code(code, ipython.user_ns, options), short, long)


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
