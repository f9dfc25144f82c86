"""``with watch(): ...``: diagnose a training loop where it runs."""

import sys
from types import TracebackType
from typing import TextIO

from .diagnoser import Report, report_of
from .failure import DiagnoserFailure, InternalError
from .findings import count
from .location import at
from .session import BackwardPass, Session, is_inplace_error

PREFIX = "inplace_doctor.watch"


class Explained(RuntimeError):
    """PyTorch's in-place error (its ``__cause__``, unchanged) and the finding that explains it (the message)."""


class watch:
    """Diagnose every backward run inside the ``with`` block.

    ::

        with watch() as w:
            loss = model(x).sum()
            loss.backward()
        w.report  # a Report: every finding once, each backward examined

    Each backward is examined just before it runs, then runs as it would without the diagnoser.
    A backward's new findings are printed as it happens (to ``file``, standard error by default;
    ``quiet=True`` prints nothing), and a one-line summary when the block ends. PyTorch's in-place
    error (at a backward, or a write it refuses) ends the block with a ``RuntimeError`` whose
    message is the finding that explains it, raised from PyTorch's error. When the block ends, the
    graphs left alive that no backward in it examined are examined as well.
    """

    def __init__(self, *, file: TextIO | None = None, quiet: bool = False):
        self._file = file
        self._quiet = quiet
        self._session: Session | None = None
        self._report: Report | None = None

    @property
    def report(self) -> Report:
        """The report so far (inside the block), or of the whole block (after it)."""
        if self._report is not None:
            return self._report
        if self._session is None:
            raise RuntimeError("watch().report is available once the with block has started")
        return report_of(self._session)

    def _out(self) -> TextIO | None:
        return None if self._quiet else (self._file or sys.stderr)

    def __enter__(self) -> "watch":
        self._report = None
        self._session = Session()
        self._session.on_pass = self._on_pass
        self._session.__enter__()
        return self

    def _on_pass(self, this_pass: BackwardPass) -> None:
        out = self._out()
        assert self._session is not None
        new = [f for f in this_pass.findings if self._session.findings.get(f.key) is f]
        if out is None or not new:
            return
        where = f" at {at(this_pass.call.path, this_pass.call.line)}" if this_pass.call else ""
        what = "the graphs left at the end of the block" if this_pass.number is None else f"backward {this_pass.number}"
        print(f"{PREFIX}: {what}{where}: {count(len(new), 'new finding')}", file=out)
        for finding in new:
            print(finding.describe(), file=out)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        session = self._session
        assert session is not None
        try:
            left = session.left_graphs() if error is None else []
            if left:  # kept alive past the block, never backwarded in it
                self._on_pass(session.examine(left, left=True))
            session.__exit__(kind, error, traceback)
            if isinstance(error, RuntimeError) and session.error is not error:
                session.explain_error(error)
        except DiagnoserFailure as failure:
            raise InternalError(failure.line()) from failure.error
        if isinstance(error, DiagnoserFailure):
            raise InternalError(error.line()) from error.error
        self._report = report_of(session)
        if error is not None and is_inplace_error(error, session):
            if (finding := self._report.explained_by) is not None:
                what = (
                    "an op raised"
                    if self._report.op_errors and session.error is not error
                    else f"backward {finding.backward} raised"
                )
                raise Explained(
                    f"{what} PyTorch's in-place error (chained as the cause); inplace_doctor found "
                    f"why:\n{finding.describe()}"
                ) from error
            return
        out = self._out()
        if out is not None and error is None:
            passes = sum(1 for p in self._report.passes if p.number is not None)
            print(f"{PREFIX}: {count(passes, 'backward pass', 'backward passes')}; {self._report.summary()}", file=out)
