"""Writes through a NumPy array the dispatcher never sees: the line after which saved values changed.

``Tensor.numpy()`` gives an array sharing the tensor's memory; writing it (``img *= 255``)
changes a saved tensor with no op, no version bump. The digest comparison at backward sees that
the values changed, but not where. So while such an array lives, a line tracer runs on the
user's frames (not torch's, not ours): at each new line of a frame it digests the saved tensors
that share memory with a live array and, the first time one differs from its digest at save
time, notes the line that frame just finished as the one after which the values had changed.

The tracer is installed only while a live array shares memory with the program (one made under
the diagnoser), and never over someone else's (a debugger, coverage): then the finding names
where the array was made, as before.
"""

import sys
import weakref
from collections.abc import Callable
from types import FrameType
from typing import Any

from . import torch_private
from .digest import changed, digest
from .location import Site, is_internal
from .memory import Memory

Tracer = Callable[[FrameType, str, Any], Any]


class AliasWatch:
    def __init__(self, records: Callable[[], list[Any]]):
        self._records = records  # the live SavedRecords
        self._arrays: list[tuple[Any, Memory]] = []  # (weak reference to the array, the memory it shares)
        self._installed = False
        self._frames: list[FrameType] = []  # frames whose f_trace we set
        self._last: dict[int, tuple[FrameType, int]] = {}  # id(frame) -> (frame, the line it started last)
        self._global_tracer: Tracer = self._global  # one bound method each, to recognise them
        self._local_tracer: Tracer = self._local

    def add(self, array: Any, memory: Memory) -> None:
        try:
            ref = weakref.ref(array)
        except TypeError:
            return
        self._arrays.append((ref, memory))
        self._install()

    # ---- the tracer

    def _install(self) -> None:
        if self._installed or sys.gettrace() is not None:
            return
        self._installed = True
        sys.settrace(self._global_tracer)
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            if not is_internal(frame.f_code.co_filename):
                frame.f_trace = self._local_tracer
                frame.f_trace_lines = True
                self._frames.append(frame)
                self._last[id(frame)] = (frame, frame.f_lineno)
            frame = frame.f_back

    def remove(self) -> None:
        if not self._installed:
            return
        self._installed = False
        if sys.gettrace() is self._global_tracer:
            sys.settrace(None)
        for frame in self._frames:
            if frame.f_trace is self._local_tracer:
                frame.f_trace = None
        self._frames, self._last = [], {}

    def _global(self, frame: FrameType, event: str, arg: Any) -> Tracer | None:
        return None if event != "call" or is_internal(frame.f_code.co_filename) else self._local_tracer

    def _local(self, frame: FrameType, event: str, arg: Any) -> Tracer | None:
        if not self._installed:
            return None
        if event == "line":
            last = self._last.get(id(frame))
            if last is not None and last[0] is frame:
                self._check(Site(frame.f_code.co_filename, last[1]))
            self._last[id(frame)] = (frame, frame.f_lineno)
        elif event == "return":
            self._check(Site(frame.f_code.co_filename, frame.f_lineno))
            self._last.pop(id(frame), None)
        return self._local_tracer

    def _check(self, finished: Site) -> None:
        if not (live := [memory for ref, memory in self._arrays if ref() is not None]):
            self._arrays = []
            self.remove()
            return
        with torch_private.dispatch_disabled():
            watched = [
                r
                for r in self._records()
                if r.digest is not None
                and r.memory is not None
                and r.changed_after is None
                and any(r.memory.overlaps(m) for m in live)
            ]
            if not watched:
                return
            differs = changed([(r.digest, digest(r.tensor)) for r in watched])
            for record, different in zip(watched, differs, strict=False):
                if different:
                    record.changed_after = finished
