"""The diagnosis of a model or a function, and its report."""

from dataclasses import dataclass, field
from typing import Any

from .failure import DiagnoserFailure, InternalError
from .findings import DETACHED, REFUSED, VIEW_MODIFIED, Finding, count, listed
from .graph import unreached_parameters
from .location import at
from .memory import tensors_in
from .session import BackwardPass, Session

SHOWN_PASSES = 8  # a report lists at most this many backward passes


@dataclass
class Report:
    findings: list[Finding]  # each bug once, in the order of their first write
    ops: int  # aten ops recorded
    writes: int  # of which in-place writes
    initialising: int  # in-place writes of a module's weight initialisation, not counted in writes
    saved: int  # saved slots inspected
    nodes: int  # backward nodes walked
    unreached: list[str] = field(default_factory=list)  # parameters requiring grad the graph never reaches
    passes: list[BackwardPass] = field(default_factory=list)  # each backward examined (empty: one forward)
    notes: list[str] = field(default_factory=list)  # how the run ended, ...
    # (first line, finding) of the in-place errors raised at an op: a view used after its base was
    # modified, a write PyTorch refused
    op_errors: list[tuple[str, Finding]] = field(default_factory=list)

    @property
    def raised(self) -> str | None:
        """The first line of the in-place error a backward raised (or an op raised), if one did."""
        return next(
            (p.raised for p in self.passes if p.raised is not None),
            self.op_errors[0][0] if self.op_errors else None,
        )

    @property
    def explained_by(self) -> Finding | None:
        """The finding that explains the in-place error PyTorch raised, if one does."""
        if (raising := next((p for p in self.passes if p.raised is not None), None)) is not None:
            return raising.raised_by
        return self.op_errors[0][1] if self.op_errors else None

    def summary(self) -> str:
        """How many findings, by where PyTorch raises: at backward, at the use of a view (the next
        forward, say), at the write; or nowhere (silent)."""
        if not (n := len(self.findings)):
            return "0 findings"
        silent = sum(f.silent for f in self.findings)
        refused = sum(f.check == REFUSED for f in self.findings)
        at_use = sum(f.check == VIEW_MODIFIED for f in self.findings)
        checks = "checks" if any(f.check == DETACHED for f in self.findings) else "version check"
        text = (
            f"{count(n, 'finding')}: {n - silent - refused - at_use} caught by PyTorch's {checks} at "
            f"backward, {silent} silent"
        )
        if at_use:
            text += f", {at_use} raised by PyTorch at the view's next use, before backward"
        return text + (f", {refused} refused by PyTorch at the write" if refused else "")

    def __str__(self) -> str:
        numbered = [p for p in self.passes if p.number is not None]
        lines = [_pass_line(p) for p in numbered]
        if len(numbered) > SHOWN_PASSES:  # a long run: its first and last passes
            lines[SHOWN_PASSES - 2 : -1] = [f"... {len(numbered) - SHOWN_PASSES + 1} more backward passes ..."]
        lines += [_pass_line(p) for p in self.passes if p.number is None]
        if not self.passes:
            lines = [
                f"no backward ran and no graph was left to examine: the program ran {count(self.ops, 'aten op')}, "
                f"{_writes(self.writes, self.initialising)}"
            ]
        lines += [
            f"PyTorch refused an in-place write: {line}"
            if finding.check == REFUSED
            else f"the program raised PyTorch's in-place error at the use of a view: {line}"
            for line, finding in self.op_errors
        ]
        lines += [f"\n[{i}] {finding.describe()}" for i, finding in enumerate(self.findings, 1)]
        if self.unreached:
            lines.append(
                f"\nnote: {len(self.unreached)} parameters that require grad are not in the "
                f"backward graph and will get no gradient ({listed(self.unreached)}); something cut them off "
                "(a write through .data, a detach, an unused module)"
            )
        lines += [f"\nnote: {note}" for note in self.notes]
        lines.append("\n" + self.summary())
        return "\n".join(lines)


def _writes(n: int, initialising: int) -> str:
    """ "2 of them in-place writes", and what was left out, when something was."""
    left_out = f" (and {count(initialising, 'write')} of a module's weight initialisation)" if initialising else ""
    return f"{n} of them {'an in-place write' if n == 1 else 'in-place writes'}{left_out}"


def _pass_line(p: BackwardPass) -> str:
    if p.number is None:
        head = "the graphs of the tensors the program returned or left"
    else:
        where = f" at {at(p.call.path, p.call.line)} ({p.call.code})" if p.call else ""
        head = f"backward {p.number}{where}"
    text = (
        f"{head}: the program ran {count(p.ops, 'aten op')} before it, {_writes(p.writes, p.initialising)}; "
        f"it reads {count(p.saved, 'saved tensor')} in {count(p.nodes, 'backward node')}"
    )
    if p.raised:
        text += f"; it raised: {p.raised}"
    return text


def report_of(session: Session, target: Any = None) -> Report:
    """The report of a session so far."""
    return Report(
        list(session.findings.values()),
        session.recorder.next_index,
        session.recorder.writes,
        session.recorder.init_writes,
        sum(p.saved for p in session.passes),
        sum(p.nodes for p in session.passes),
        unreached_parameters(target, session.last_nodes),
        list(session.passes),
        op_errors=[(str(e).strip().splitlines()[0], f) for e, f in session.op_errors],
        notes=[f"not examined: {reason}" for reason in session.not_examined],
    )


def diagnose(target: Any, *args: Any, **kwargs: Any) -> Report:
    """Run ``target(*args, **kwargs)`` under the diagnoser and report the in-place writes over
    saved tensors.

    The target runs the forward itself, inside this call (a graph built before it is not seen),
    and either returns what backward would start from (a loss, any tensors: ``diagnose(model, x,
    y)``), whose graphs are examined as if backward were about to run, or calls backward itself
    (``diagnose(lambda: train(steps=1))``): each backward is examined just before it runs, then
    runs as it would without the diagnoser. A write that breaks only a later backward needs a
    target that runs that later backward. The graphs the target returns, or leaves alive where no
    backward examined them, are examined after it.

    If PyTorch raises its in-place error (at a backward, at the use of a view, or refusing a
    write), the target stops there and the report holds the finding that explains it
    (``report.raised`` has the error's first line); the error is not re-raised. Any other error
    propagates; the diagnoser's own failure raises ``InternalError``. Returns a ``Report``; the
    target's return value is dropped.
    """
    session = Session(target)
    outputs: Any = None
    try:
        with session:
            try:
                outputs = target(*args, **kwargs)
            except RuntimeError as error:
                if session.error is not error and session.explain_error(error) is None:
                    raise
            examined = [t for t in tensors_in(outputs) if t.grad_fn is not None]
            if examined:  # what it returns, as if backward were about to run from it
                session.examine(examined)
            left = session.left_graphs()  # what it kept alive elsewhere (on an object, a global), never backwarded
            if left or not session.passes:
                session.examine(left, left=True)
    except DiagnoserFailure as failure:
        raise InternalError(failure.line()) from failure.error
    return report_of(session, target)
