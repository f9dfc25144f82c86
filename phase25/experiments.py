"""The experiments the claims and the pages share, beside minigpt's (minigpt.experiments, kept in the
store's folder [tool.book.environment] gives it): run A and B under torch.compile per backend, and
SHARED, what the precompute hook computes in two processes before any page runs."""

from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any, cast

from execbook import REPO, code_fingerprint, memoized
from minigpt.experiments import BYPASSES, data, described, gradients, run_b, training
from minigpt.train import BackwardRaised

from . import compiled as compiling


def compiled(backend: str, inplace: bool) -> compiling.Compiled:
    """phase25.compiled.Compiled: run A (inplace=False) or run B compiled with backend, one forward call
    (which compiles) and backward on the probe batch; "not applicable: ..." where torch cannot."""
    code = code_fingerprint(Path(__file__), Path(compiling.__file__), REPO / "minigpt" / "train.py")
    key = f"compiled({described(backend=backend, inplace=inplace)})-{code}"
    return cast(compiling.Compiled, memoized("experiment", key, lambda: compiling.measure(backend, inplace, data())))


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
    with suppress(BackwardRaised):  # kept in the store all the same: gradients of run B raise
        function(**arguments)


def precompute(workers: int) -> None:
    """The build's first step ([tool.book.hooks] precompute): SHARED, in `workers` processes."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(compute_shared, range(len(SHARED))))
