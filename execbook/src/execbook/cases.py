"""The case manifest, examples/cases.toml: what each executed example must do (AUTHORING.md lists
its keys; a book's own, judged by its `check-entry` hook, go to Case.extra). Pages, `python -m
execbook run` and the tests all judge through `judge` (the book's `judge` hook may refine it).
An example file is what its cell shows, then, from the line CHECKS on, its hidden checks."""

import ast
import builtins
import contextlib
import io
import json
import re
import tomllib
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from . import comments, config
from .tracebacks import excerpt

CHECKS = "# %% hidden checks"  # the line where an example's hidden checks start
EXPECTATIONS = ("completes", "raises")
KEYS = {"expect", "error", "match", "holds", "reads"}
WITH = "@with:"  # a `reads` entry "@with:KEY": the outcomes of the cases whose entry sets KEY


class ManifestError(ValueError):
    """examples/cases.toml says something impossible: one line naming the entry."""


@dataclass(frozen=True)
class Case:
    name: str  # the example's file name without .py
    expect: str
    error: str | None = None
    match: str | None = None
    holds: str | None = None
    reads: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # the book's own keys (its check-entry hook)

    @property
    def path(self) -> Path:
        return config.EXAMPLES / f"{self.name}.py"

    def expected(self) -> str:
        """What the case must do, after "must" (failure messages, claim statements)."""
        if self.expect == "raises":
            return f"raise {self.error} containing {self.match!r}"
        return "complete" + (f" with {self.holds} true" if self.holds else "")


def entry_case(name: str, entry: dict[str, Any], manifest_name: str = "cases.toml") -> Case:
    """The Case of one manifest entry, or ManifestError naming it."""
    raises = entry.get("expect") == "raises"
    own = config.hook("check-entry")
    unknown = set(entry) - KEYS if own is None else set()
    checks = [
        (unknown, f"unknown key(s) {', '.join(sorted(unknown))}"),
        (entry.get("expect") not in EXPECTATIONS, f"expect must be one of {', '.join(EXPECTATIONS)}"),
        (raises and not (entry.get("error") and entry.get("match")), "a raising case needs error and match"),
        (not raises and ("error" in entry or "match" in entry), 'error/match only go with expect = "raises"'),
        (not (config.EXAMPLES / f"{name}.py").is_file(), f"no file examples/{name}.py"),
    ]
    problem = next((p for failed, p in checks if failed), None) or (own(name, entry) if own is not None else None)
    if problem:
        raise ManifestError(f"{manifest_name} [{name}]: {problem}")
    known: dict[str, Any] = {k: tuple(v) if k == "reads" else v for k, v in entry.items() if k in KEYS}
    return Case(name, **known, extra={key: value for key, value in entry.items() if key not in KEYS})


def load(path: Path) -> dict[str, Case]:
    """name -> Case, in the manifest's order."""
    try:
        entries = tomllib.loads(Path(path).read_text("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{Path(path).name}: not valid TOML ({exc})") from None
    return {name: entry_case(name, entry, Path(path).name) for name, entry in entries.items()}


@cache
def manifest() -> dict[str, Case]:
    return load(config.MANIFEST)


def entry_line(name: str) -> int | None:
    """The line of examples/cases.toml that opens [name]'s entry."""
    header = re.compile(rf"\[\s*([\"']?){re.escape(name)}\1\s*\]\s*(#.*)?")
    lines = config.MANIFEST.read_text("utf-8").split("\n")
    return next((n for n, line in enumerate(lines, 1) if header.fullmatch(line.strip())), None)


@cache
def entry_text(name: str) -> str:
    """The example's entry, as a fingerprint reads it: editing one entry re-runs only its pages."""
    return json.dumps(tomllib.loads(config.MANIFEST.read_text("utf-8"))[name], sort_keys=True)


def cases_with(key: str) -> list[Case]:
    """The cases whose entry sets the book's own key `key`, in manifest order."""
    return [c for c in manifest().values() if key in c.extra]


@dataclass
class Outcome:
    name: str
    ok: bool  # it did what the manifest says
    raised: str | None = None  # "RuntimeError: ...", or None
    line: str | None = None  # the example's line that raised
    seen: str = ""  # what happened, in one line
    lineno: int | None = None  # that line's number in the example

    def failure(self) -> str:
        entry = "examples/cases.toml" + (f":{line}" if (line := entry_line(self.name)) else "")
        return f"examples/{self.name}.py must {manifest()[self.name].expected()} ({entry}), but {self.seen}"


@dataclass(frozen=True)
class Failure:
    """A failed example as the build reports it: where, what, what to do. kind: "case", "check" (the
    prose is false), "broken-check", "raised" (undeclared), "unstable" (execbook.outputs)."""

    file: str  # examples/<name>.py
    line: int | None
    kind: str
    reason: str
    todo: str

    @property
    def place(self) -> str:
        return self.file + (f":{self.line}" if self.line else "")

    def message(self) -> str:
        """One paragraph without the page: what `python -m execbook run` and the guard's error say."""
        return self.reason if self.kind in ("case", "raised") else f"{self.place}, {self.reason}"

    def render(self, where: str) -> str:
        """The build's report of it: the page, the file and line, the reason, what to do."""
        reason = "\n".join(f"  {line}" for line in self.reason.splitlines())
        return f"{where} · {self.place}\n{reason}\n  → {self.todo}"


def case_failure(outcome: Outcome, earlier: list[str] | None = None) -> Failure:
    """What the guard and `run` say of an outcome that is not ok; earlier: the examples before it on its page."""
    case = manifest()[outcome.name]
    if outcome.raised and case.expect != "raises":
        raised = excerpt(outcome.raised.splitlines()[0], width=300)
        reason = f"it raised {raised}\nbut examples/cases.toml [{case.name}] says it must {case.expected()}"
        reason += borrowed(earlier or [], outcome.raised)
        return Failure(f"examples/{case.name}.py", outcome.lineno, "raised", reason, raised_todo(case))
    todo = f"the example no longer does what its entry declares: fix the example, or its entry [{case.name}] in"
    return Failure(f"examples/{case.name}.py", outcome.lineno, "case", outcome.failure(), f"{todo} examples/cases.toml")


def line_in(case: Case, frames: list[tuple[str, int, str]]) -> int | None:
    """The line of examples/<name>.py that frames (path, line, function, innermost first) run, for every
    report: the innermost in the file, or in the cell run_code runs (shifted by the pairs of comments)."""
    cell = next((frames[i - 1][0] for i in range(1, len(frames)) if frames[i][2] == "run_code"), None)
    for path, line, _ in frames:
        if path == str(case.path):
            return line
        if path == cell:
            return comments.file_line(split(case.path)[0], line)
    return None


def frames_of(error: BaseException) -> list[tuple[str, int, str]]:
    """(path, line, function) of each frame of error's traceback, innermost first."""
    walked = traceback.walk_tb(error.__traceback__)
    return [(frame.f_code.co_filename, line, frame.f_code.co_name) for frame, line in walked][::-1]


def source_line(case: Case, line: int | None) -> str | None:
    return case.path.read_text("utf-8").split("\n")[line - 1].strip() if line else None


def borrowed(earlier: list[str], raised: str) -> str:
    """For a NameError: the earlier example on the page that defines the name (kernel.forget_example)."""
    if not (missing := re.search(r"name '(\w+)' is not defined", raised)):
        return ""
    for other in reversed(earlier):
        if any(
            isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == missing[1]
            for n in ast.walk(ast.parse(split(manifest()[other].path)[0]))
        ):
            return (
                f"\n({missing[1]} is defined by examples/{other}.py, an earlier example on the page: each "
                "example runs in a namespace of its own, as it does alone; define or import it here)"
            )
    return ""


def _assigned_at(source: str, name: str) -> int | None:
    """The line of the last top-level statement of source that assigns name (None if none does)."""
    lines = [
        node.lineno
        for node in ast.parse(source).body
        if any(
            isinstance(target, ast.Name) and target.id == name
            for target in getattr(node, "targets", [getattr(node, "target", None)])
        )
    ]
    return lines[-1] if lines else None


def judge(case: Case, error: BaseException | None, namespace: dict[str, Any]) -> Outcome:
    """Outcome of one run of case (error: what it raised, or None), the book's judge hook having the last word."""
    found = _judge(case, error, namespace)
    own = config.hook("judge")
    return found if own is None else own(case, found)


def raised_todo(case: Case) -> str:
    """What to do when the example raised and its entry says otherwise."""
    if case.expect != "raises":
        return f"fix the example so that it completes, as its entry [{case.name}] in examples/cases.toml declares"
    return "fix the example, or declare what it raises in its entry (expect, error, match)"


def _judge(case: Case, error: BaseException | None, namespace: dict[str, Any]) -> Outcome:
    if error is not None:
        text = f"{type(error).__name__}: {error}"
        lineno = line_in(case, frames_of(error))
        line = (source_line(case, lineno) or "").split("#")[0].strip() or None
        kind = getattr(builtins, case.error or "", Exception)
        ok = case.expect == "raises" and isinstance(error, kind) and (case.match or "") in str(error)
        seen = f"raised {type(error).__name__}: {line}" if ok else f"it raised {excerpt(text, width=300)}"
        return Outcome(case.name, ok, text, line, seen, lineno)
    if case.expect == "raises":
        return Outcome(case.name, False, seen="it completed without raising", lineno=last_statement(case))
    if case.holds and namespace.get(case.holds) is not True:
        seen = f"{case.holds} is {namespace.get(case.holds, 'undefined')!r}"
        return Outcome(case.name, False, seen=seen, lineno=_assigned_at(split(case.path)[0], case.holds))
    return Outcome(case.name, True, seen="completed" + (f"; {case.holds} is True" if case.holds else ""))


def last_statement(case: Case) -> int | None:
    """The line of the example's last statement: the expression a cell displays as its result."""
    body = ast.parse(split(case.path)[0]).body
    return body[-1].lineno if body else None


def split(path: Path) -> tuple[str, str]:
    """(what the page shows, the hidden checks behind blank lines: their line numbers are the file's)."""
    lines = Path(path).read_text("utf-8").split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith(CHECKS)), len(lines))
    return "\n".join(lines[:at]).rstrip("\n") + "\n", "\n" * at + "\n".join(lines[at:])


def run_checks(
    case: Case, namespace: dict[str, Any], glue: Callable[[str, Any], object], error: BaseException | None
) -> None:
    """The example's hidden checks, on a copy of the names it left, with glue(key, value)."""
    from . import gluing

    def glue_published(key: str, value: Any) -> object:
        if value is None or "NoneType" in str(value):  # what a check reads of an error that never came
            raise GluedNone(key, value)
        return glue(key, value)

    code = split(case.path)[1]
    if code.strip():
        with gluing.running(glue_published, error):
            exec(compile(code, str(case.path), "exec"), dict(namespace))


class GluedNone(AssertionError):
    """A hidden check glued None (or text made of it): no page may publish it."""

    def __init__(self, key: str, value: Any) -> None:
        self.key = key
        super().__init__(f"it glues {key} = {str(value)[:80]!r}, which no page may publish")


def check_failure(
    case: Case, failed: Exception, guarded: Callable[[str, int | None, str | None], list[str]] | None = None
) -> Failure:
    """The failure of a hidden check at its line: a book's exception may give `reason` and `todo`; a failed
    assert says the prose no longer holds, where guarded(name, line, key) finds it; else, a broken check."""
    file, line = f"examples/{case.name}.py", line_in(case, frames_of(failed))
    reason, todo = getattr(failed, "reason", None), getattr(failed, "todo", None)
    if isinstance(reason, str) and isinstance(todo, str):
        return Failure(file, line, "check", reason, todo)
    if isinstance(failed, AssertionError):
        said = str(failed) or source_line(case, line) or "assertion failed"
        sentences = guarded(case.name, line, getattr(failed, "key", None)) if guarded else []
        where = "".join(f"\n  {s}" for s in sentences)
        reason = f"a hidden check of what the prose says: {said}" + (f"\nit guards:{where}" if where else "")
        todo = "what the prose says no longer holds: edit the sentence in both languages, or the check"
        if isinstance(failed, GluedNone):
            todo = f"glue {failed.key} from what the example does now (raised() is None once it completes), or edit"
            todo += " the sentences that quote it"
        return Failure(file, line, "check", reason, todo)
    todo = "the check itself is broken: fix it (below the example's `# %% hidden checks` line)"
    return Failure(file, line, "broken-check", f"a hidden check raised {type(failed).__name__}: {failed}", todo)


@dataclass
class Run:
    error: BaseException | None  # what the example raised, or None
    namespace: dict[str, Any]  # the globals it left
    stdout: str
    glued: dict[str, Any]  # myst_nb.glue key -> value
    outcome: Outcome | None = None  # the run judged against the manifest


def execute(name: str) -> Run:
    """Run examples/<name>.py here as a fresh __main__, then, if it did what the manifest says, its
    hidden checks, as the page's guard does; what they glue is kept, not displayed."""
    case = manifest()[name]
    run = Run(None, {"__name__": "__main__", "__file__": str(case.path)}, "", {})
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        try:
            exec(compile(split(case.path)[0], str(case.path), "exec"), run.namespace)
        except Exception as exc:  # noqa: BLE001 - judged against the manifest
            run.error = exc
        run.outcome = judge(case, run.error, run.namespace)
        if run.outcome.ok:
            run_checks(case, run.namespace, run.glued.__setitem__, run.error)
    run.stdout = output.getvalue()
    return run
