"""What a page's kernel runs around its cells: the hidden setup cell calls `begin`, each example's
hidden guard `check`; loaded as an IPython extension (`install`), it folds tracebacks (execbook.tracebacks)."""

import builtins
import faulthandler
import os
import re
import sys
import threading
import time
import warnings
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

from . import cases, config, deps, store, tracebacks

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

_last: dict[str, BaseException | None] = {"error": None}
_baseline: set[str] = set()  # the names of the page's namespace before its first example (begin)
outcomes: dict[str, cases.Outcome] = {}  # example name -> Outcome, for the cases checked in this kernel


class CheckFailed(AssertionError):
    """A page's guard found that an example, or what the prose says of it, no longer holds (`failure`)."""

    def __init__(self, failure: cases.Failure) -> None:
        self.failure = failure
        super().__init__(failure.message())


def _fail(name: str, failure: cases.Failure) -> CheckFailed:
    store.save("failure", deps.outcome_key(name), failure, seconds=None)  # the build reports it (explain)
    return CheckFailed(failure)


def remember_error(error: BaseException | None) -> None:
    """What the cell that just ran raised (None if nothing), for check: IPython calls it after every cell."""
    _last["error"] = error


def install(shell: "InteractiveShell") -> None:
    """Set up a page's kernel: remember what each cell raised (for check), fold errors and warnings."""
    shell.events.register("post_run_cell", lambda result: remember_error(result.error_in_exec))

    def label(path: str) -> str | None:  # "Cell In[6]" for the file IPython compiled a cell into, else None
        return " ".join(shell.compile.format_code_name(path) or ()) or None

    places = tracebacks.Places(str(config.REPO), native=tuple(config.NATIVE_SOURCES), cell_label=label)
    shell.InteractiveTB.set_theme_name("nocolor")

    def show(
        shell: "InteractiveShell", etype: type, value: BaseException, tb: Any, tb_offset: int | None = None
    ) -> None:
        stb = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset, context=tracebacks.CONTEXT)
        shell._showtraceback(etype, value, tracebacks.fold(stb, places))

    shell.set_custom_exc((Exception,), show)
    warnings.showwarning = tracebacks.warning_printer(places)
    if os.environ.get(WHERE_ENV):
        watch(os.environ[WHERE_ENV])


WHERE_ENV = "BOOK_WHERE"  # the file where a page's kernel keeps the frames it runs (execbook.build)
WATCH_S = 0.5


def watch(path: str) -> None:
    """Keep in path the main thread's frames every WATCH_S and at os._exit (path.fatal: faulthandler's at a
    fatal signal), for the build to name the statement that runs long, times out or ends the kernel."""
    faulthandler.enable(open(path + ".fatal", "w"))  # noqa: SIM115 - open until the process ends
    main, exit_ = threading.main_thread().ident, os._exit

    def keep(frame: FrameType | None) -> None:
        lines = []
        while frame is not None:
            lines.append(f'  File "{frame.f_code.co_filename}", line {frame.f_lineno} in {frame.f_code.co_name}\n')
            frame = frame.f_back
        store.write_atomically(path, "".join(lines).encode())

    def ended(status: int) -> NoReturn:
        keep(sys._getframe(1))
        exit_(status)

    def sample() -> None:
        while True:
            time.sleep(WATCH_S)
            keep(sys._current_frames().get(main or 0))

    os._exit = ended
    threading.Thread(target=sample, name="execbook-watch", daemon=True).start()


def running(path: str | Path) -> list[tuple[str, int, str]]:
    """The frames (path, line, function), innermost first, watch(path) kept of the thread in run_code (or all)."""
    dump = "".join(Path(f).read_text(errors="replace") for f in (f"{path}.fatal", path) if Path(f).exists())
    threads = re.split(r"\n(?=\S)", dump)  # a line that starts a thread's frames does not indent
    blocks = [[(m["path"], int(m["line"]), m["function"]) for m in tracebacks.FRAME_LINE.finditer(t)] for t in threads]
    return next((b for b in blocks if any(f == "run_code" for _, _, f in b)), [f for b in blocks for f in b])


load_ipython_extension = install  # the kernel's `--ext execbook.kernel` (execbook.build.run_page)


def _namespace() -> dict[str, Any]:
    get_ipython = getattr(builtins, "get_ipython", None)
    return vars(sys.modules["__main__"]) if get_ipython is None else get_ipython().user_ns


def check(name: str, namespace: dict[str, Any] | None = None) -> cases.Outcome:
    """Judge the cell that just ran examples/<name>.py against the manifest (failing the build unless it
    did what it says), keep its outcome (here and in the store), then run its hidden checks."""
    own_namespace = namespace is None
    namespace = _namespace() if namespace is None else namespace
    case = cases.manifest()[name]
    outcome = cases.judge(case, _last["error"], namespace)
    outcomes[name] = outcome
    store.save("case", deps.outcome_key(name), outcome)  # the cell above was this case's one run
    if not outcome.ok:
        raise _fail(name, cases.case_failure(outcome, earlier=[n for n in outcomes if n != name]))
    from myst_nb import glue

    try:
        cases.run_checks(case, namespace, lambda key, value: glue(key, value, display=False), _last["error"])
    except Exception as failed:  # noqa: BLE001 - the build says where, and why
        from . import quotes  # the sentences the check guards, named in the pages

        raise _fail(name, cases.check_failure(case, failed, quotes.guarded)) from None
    if own_namespace:
        forget_example(namespace)
    return outcome


IPYTHON_NAMES = re.compile(r"_{1,3}|_i{1,3}|_i?\d+|_oh|_dh|In|Out|exit|quit|get_ipython")


def forget_example(namespace: dict[str, Any]) -> None:
    """After its guard, the names an example defined go: each runs in a namespace of its own, as it does
    alone, so a later example using a name it never defined raises NameError on the page too."""
    for key in [k for k in namespace if k not in _baseline and not IPYTHON_NAMES.fullmatch(k)]:
        del namespace[key]


def begin() -> None:
    """Note the names of the page's namespace before its first example, which forget_example keeps."""
    _baseline.update(_namespace())
