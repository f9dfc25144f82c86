"""The experiments that the claims (phase25.claims), the pages and the compatibility page share.

Run B's first backward, the gradients of each switch and the training runs are minigpt's
(minigpt.experiments, which learners call); in the book minigpt keeps them in the folder of the
build's store that [tool.book.environment] gives it (MINIGPT_CACHE, for every page and every
process it starts). Here too: run A and run B under torch.compile with each backend (phase25.compiled), and SHARED, what
the build computes first, in two processes, before any page runs (the precompute hook); anything
else is computed where it is first needed.
"""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execbook import REPO, STORE, code_fingerprint, memoized
from minigpt.experiments import BYPASSES, data, gradients, run_b, training
from minigpt.train import BackwardRaised

from . import compiled as compiling


def compiled(backend: str, inplace: bool) -> compiling.Compiled:
    """phase25.compiled.Compiled: run A (inplace=False) or run B compiled with backend, one forward call
    (which compiles) and backward on the probe batch; "not applicable: ..." where torch cannot."""
    described = f"backend={backend},inplace={inplace}"
    code = code_fingerprint(Path(__file__), Path(compiling.__file__), REPO / "minigpt" / "train.py")
    found: compiling.Compiled = memoized(
        "experiment",
        f"compiled({described})-{code}",
        lambda: compiling.measure(backend, inplace, data()),
    )
    return found


# What the build computes before any page runs (two processes share the list): what several
# pages and the claims read, and the training runs, the longest first.
SHARED: list[tuple[Callable[..., Any], dict[str, Any]]] = [
    (training, {}),
    *((training, switches) for switches in BYPASSES.values()),
    *((run_b, {"anomaly": anomaly}) for anomaly in (False, True)),
    *((gradients, switches) for switches in ({}, *BYPASSES.values(), {"relu_inplace": True}, {"exp_inplace": True})),
]


def compute_shared(index: int) -> None:
    """Compute SHARED[index] (in a worker process of precompute)."""
    function, arguments = SHARED[index]
    try:
        function(**arguments)
    except BackwardRaised:  # kept in the store all the same: gradients of run B raise
        pass


def precompute(workers: int) -> None:
    """The build's first step ([tool.book.hooks] precompute): SHARED, in `workers` processes."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(compute_shared, range(len(SHARED))))


def stale_record_note() -> list[str]:
    """After a build (the report hook): when the compatibility page found this release's committed
    record stale (only the wording changed; every claim holds), what to re-record."""
    live = STORE / "live-record.json"  # examples/compat_tables.py writes it
    stale = json.loads(live.read_text("utf-8")).get("stale") if live.is_file() else None
    if not stale:
        return []
    command = f"nox -s \"drift(torch='{stale['release']}')\""
    notes = []
    if stale["what"]:
        notes.append(
            f"note: records/torch-{stale['release']}.json is stale ({', '.join(stale['what'])} changed; every "
            f"claim holds): re-record it with {command}"
        )
    if stale.get("unmeasured"):
        notes.append(
            f"note: records/torch-{stale['release']}.json has not measured claim(s) {', '.join(stale['unmeasured'])} "
            f"(a new case): record it with {command} and commit it (nox -s tests fails until then)"
        )
    return notes
