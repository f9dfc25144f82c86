"""The diagnosis of a model or a function, and its report."""

from dataclasses import dataclass, field
from typing import Any, List, Optional

from .findings import DETACHED, Finding
from .location import display_path
from .memory import tensors_in
from .session import BackwardPass, Session


@dataclass
class Report:
    findings: List[Finding]  # each bug once, in the order of their first write
    ops: int  # aten ops recorded
    writes: int  # of which in-place writes
    saved: int  # saved slots inspected
    nodes: int  # backward nodes walked
    unreached: List[str] = field(default_factory=list)  # parameters requiring grad the graph never reaches
    passes: List[BackwardPass] = field(default_factory=list)  # each backward examined (empty: one forward)
    notes: List[str] = field(default_factory=list)  # how the run ended, PyTorch's refusals, ...
    refused: List[str] = field(default_factory=list)  # in-place writes PyTorch refused outright

    @property
    def raised(self) -> Optional[str]:
        """The first line of the in-place error a backward raised, if one did."""
        return next((p.raised for p in self.passes if p.raised is not None), None)

    def summary(self) -> str:
        n = len(self.findings)
        silent = sum(f.silent for f in self.findings)
        checks = "checks" if any(f.check == DETACHED for f in self.findings) else "version check"
        text = (f"{n} finding{'' if n == 1 else 's'}: {n - silent} caught by PyTorch's {checks} at backward, "
                f"{silent} silent")
        if self.refused:
            text += f"; {len(self.refused)} in-place write{'' if len(self.refused) == 1 else 's'} refused by PyTorch"
        return text

    def __str__(self) -> str:
        backward = [p for p in self.passes if p.number is not None]
        if backward:
            lines = [_pass_line(p) for p in backward]
            lines += [_pass_line(p) for p in self.passes if p.number is None]
        else:
            lines = [f"one forward: {self.ops} aten ops, {self.writes} of them in-place writes; "
                     f"{self.saved} saved tensors in {self.nodes} backward nodes"]
        for i, finding in enumerate(self.findings, 1):
            lines.append(f"\n[{i}] {finding.describe()}")
        for text in self.refused:
            lines.append(f"\n{text}")
        if self.unreached:
            shown = ", ".join(self.unreached[:4]) + (", ..." if len(self.unreached) > 4 else "")
            lines.append(f"\nnote: {len(self.unreached)} parameters that require grad are not in the "
                         f"backward graph and will get no gradient ({shown}); something cut them off "
                         "(a write through .data, a detach, an unused module)")
        for note in self.notes:
            lines.append(f"\nnote: {note}")
        lines.append("\n" + self.summary())
        return "\n".join(lines)


def _pass_line(p: BackwardPass) -> str:
    if p.number is None:
        head = "after the program, the graphs of the tensors it left"
    else:
        where = f" at {display_path(p.call.path)}:{p.call.line} ({p.call.code})" if p.call else ""
        head = f"backward {p.number}{where}"
    text = (f"{head}: {p.ops} aten ops before it, {p.writes} of them in-place writes; "
            f"{p.saved} saved tensors in {p.nodes} backward nodes")
    if p.raised:
        text += f"; it raised: {p.raised}"
    return text


def report_of(session: Session, target: Any = None) -> Report:
    ops = sum(p.ops for p in session.passes) or session.recorder.next_index
    writes = sum(p.writes for p in session.passes)
    return Report(list(session.findings.values()), ops, writes,
                  sum(p.saved for p in session.passes), sum(p.nodes for p in session.passes),
                  session.unreached(target), list(session.passes))


def diagnose(target: Any, *args: Any, **kwargs: Any) -> Report:
    """Run ``target(*args, **kwargs)`` under the diagnoser and report the in-place writes over
    saved tensors.

    ``target`` is a model (called with the batch) or any callable. Every tensor it returns (a
    loss, ``(logits, loss)``, ...) is a root of the backward graph that is inspected, as if
    backward were about to run from it: no backward is needed, and none is run.

    If ``target`` calls backward itself (``diagnose(lambda: train(steps=1))``), each backward is
    inspected just before it runs, and then runs as it would without the diagnoser (so gradients
    and optimizer steps are what they would be). If one raises PyTorch's in-place error, the
    target stops there and the report holds the finding that explains it (``report.raised``
    has the error's first line); the error is not re-raised. Any other error propagates. When a
    backward ran, the returned tensors are not inspected again (their graph is usually freed).

    Returns a ``Report``; the outputs themselves are dropped.
    """
    session = Session(target, track_builds=False)
    outputs: Any = None
    with session:
        try:
            outputs = target(*args, **kwargs)
        except RuntimeError as error:
            if session.error is not error:
                raise
        if not session.passes:
            session.examine(tensors_in(outputs))
    return report_of(session, target)
