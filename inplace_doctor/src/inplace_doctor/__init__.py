"""Precise in-place diagnosis: which op overwrote which saved tensor, at which line.

Its tools, each shown in README.md: ``diagnose(target, *args)`` (``diagnoser``), ``with watch():``
(``watching``), ``python -m inplace_doctor [--steps N|all] SCRIPT.py`` (``runner``; every rank
reports under ``torchrun``), ``pytest --inplace-doctor`` (``pytest_plugin``), ``%%inplace_doctor``
(``notebook``), and ``find_inplace_calls(paths_or_module)`` (``scan``), the "grep" step done
mechanically: every candidate in-place write in Python source, harmful or not.

How (``session``): while the program runs,

* a dispatch mode sees every aten op and logs each in-place one: its name, the user source line
  (``location``), the running module and, for one made with ``inplace=True``, the line that
  built it (``modules``), and which memory it writes (read from the op schema; ``memory``);
* a ``saved_tensors_hooks`` pack hook logs every tensor saved for backward: the version at
  save time, when and where it was saved, the bytes it covered, and a digest of its values
  (``digest``: a few numbers, not a copy);
* a torch function mode sees each call above autograd: an in-place call that raises before any
  write of it reached the dispatcher, its tensor in a state PyTorch refuses to write (a leaf that
  requires grad, one of several views, ...), is a write PyTorch refused, named at its line (``refusals``);
* ``Tensor.detach_`` and ``Tensor.numpy`` are wrapped to log what no aten op shows; while a NumPy
  array sharing a saved tensor's memory lives, a line tracer notes the line after which the saved
  values changed (``aliases``);
* the gradient hooks the program registers are wrapped: one that writes in place a gradient
  another branch also holds is named at its line (``hooks``);
* ``torch.func``'s grad, grad_and_value, vjp and jacrev, which refuse saved-tensor hooks, run the
  function under plain autograd, and ``vmap`` runs with the hooks lifted (``transforms``).

Before each backward runs, the nodes it will run are walked (``graph``) and every saved slot (and
the tensors a custom Function keeps on its ctx, and a checkpoint's saved inputs) is matched
against the writes logged after it was saved, by memory: same storage, overlapping bytes
(``matching``, ``findings``). Matching memory instead of trusting the version counter also finds what the
counter cannot see: writes through ``.data`` and fused optimizer steps, tensors saved under
someone else's ``saved_tensors_hooks`` (PyTorch then skips its check) and ``ctx.x`` kept outside
``save_for_backward``. Comparing digests finds writes made behind PyTorch's back (through NumPy,
a custom kernel). Then the backward runs as it would have without the diagnoser (the dispatch
mode steps aside while it runs; foreach optimizer steps, which under a dispatch mode leave
version counters alone on torch 2.13, have them bumped as without one). When the program ends,
the graphs it returned, and those it left alive that no backward examined, are examined the same
way.

The diagnoser's own errors are never swallowed (``failure``): the program stops there, with one
line saying so, instead of running on differently.

Every private PyTorch API this relies on is reached through ``torch_private``, whose ``PROBES``
check each one on the installed torch.
"""

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.4.0"

# Importing the package imports nothing else: torch is imported when a name below is first used
# (PEP 562), so that the pytest plugin, registered by installing the package, costs a pytest run
# that does not ask for it nothing (bench/diagnose_overhead.py measures it).
_PUBLIC = {
    "diagnose": "diagnoser",
    "Report": "diagnoser",
    "watch": "watching",
    "Finding": "findings",
    "Check": "findings",
    "BackwardPass": "session",
    "Location": "location",
    "InternalError": "failure",
    "find_inplace_calls": "scan",
    "Candidate": "scan",
}

if TYPE_CHECKING:
    from .diagnoser import Report, diagnose
    from .failure import InternalError
    from .findings import Check, Finding
    from .location import Location
    from .scan import Candidate, find_inplace_calls
    from .session import BackwardPass
    from .watching import watch


def __getattr__(name: str) -> Any:
    if (module := _PUBLIC.get(name)) is None:
        raise AttributeError(f"module 'inplace_doctor' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext inplace_doctor``: the ``%%inplace_doctor`` cell magic (``notebook``)."""
    from .notebook import load_ipython_extension as load

    load(ipython)


# The public API (README.md: API reference); every other module is internal.
__all__ = [
    "diagnose",
    "watch",
    "Report",
    "Finding",
    "Check",
    "BackwardPass",
    "Location",
    "InternalError",
    "find_inplace_calls",
    "Candidate",
]
