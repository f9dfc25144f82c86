"""Precise in-place diagnosis: which op overwrote which saved tensor, at which line.

Two tools, the two ends of the diagnostic ladder:

``find_inplace_calls(paths_or_module)`` (``scan``)
    The "grep" step done mechanically: parse Python source with ``ast`` and list every
    *candidate* in-place write (``h.add_(...)``, ``F.relu_(x)``, ``x += y``, ``x.data...``,
    ``inplace=True``, ``x[...] = ...``). It cannot tell a harmless write from a harmful one.

``diagnose(target, *args, **kwargs)`` (``diagnoser``)
    Run ``target(*args, **kwargs)`` once (a model and its batch, or any callable returning a
    loss) and report every in-place write that overwrote a tensor some backward node saved.
    No backward pass and no anomaly mode are needed. During the forward (``recorder``):

    * a dispatch mode logs every aten op: its name, the user source line (``location``), which
      memory it writes (mutating ops, read from the op schema; ``memory``) and the tensors it
      reads and returns;
    * a ``saved_tensors_hooks`` pack hook logs every tensor saved for backward: the version at
      save time, when it was saved and a copy of its values.

    Afterwards the graph is walked from the outputs (``graph``); every saved slot of every node
    (and the tensors a custom Function keeps on its ctx) is matched against the writes logged
    after it was saved, by memory: same storage, overlapping bytes (``findings``). Matching
    memory instead of trusting the version counter also finds what the counter cannot see:
    writes through ``.data``, tensors saved under someone else's ``saved_tensors_hooks``
    (PyTorch then skips its check) and ``ctx.x`` kept outside ``save_for_backward``. Comparing
    the values with the copy finds writes made behind PyTorch's back (e.g. through numpy).

Every private PyTorch API this relies on is reached through ``torch_private``, whose ``PROBES``
check each one on the installed torch.
"""

from .diagnoser import Report, diagnose
from .findings import COUNTER_BLIND, CTX_UNCHECKED, HOOKS_SKIP_CHECK, RAISES, UNSEEN_WRITE, Finding
from .graph import SavedSlot
from .location import Location
from .memory import Memory
from .recorder import Op, SavedRecord
from .scan import Candidate, find_inplace_calls

__all__ = [
    "diagnose", "Report", "Finding", "Op", "SavedRecord", "SavedSlot", "Location", "Memory",
    "RAISES", "COUNTER_BLIND", "HOOKS_SKIP_CHECK", "CTX_UNCHECKED", "UNSEEN_WRITE",
    "find_inplace_calls", "Candidate",
]
