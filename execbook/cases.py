"""The case manifest: what each executed example must do, declared once (examples/cases.toml).

One entry per file in examples/ that a page loads:

    [symptom_backward]
    expect = "raises"                 # or "completes"
    error = "RuntimeError"            # with "raises": the exception type ...
    match = "modified by an inplace operation"   # ... and a fragment of its message
    holds = "same"                    # optional: a name the example defines that must be True
    verdict = "unsafe"                # optional: listed in the safe-case summary, as safe or unsafe
    raised_at = "backward"            # with an unsafe verdict: "backward" or "op" (the op itself)
    case = {en = "...", es = "..."}   # its name in the summary, per language
    checks = {en = "...", es = "..."} # with holds: what that name being True means, per language
    reads = ["justfile"]              # files it reads or runs besides the modules it imports
                                      # ("@summary": the outcomes of the summary's cases)

Everything else derives from it: the pages' cells get their raises-exception tags and hidden
guards from it (book.pages), the guard judges the cell with `judge`, `python -m book run <name>`
and the tests run each file through `execute` and judge it the same way, and the safe-case
summary lists the outcomes the guards saved.

An example file is what its cell shows, then, from a line starting with CHECKS on, its hidden
checks (book.checks), which the guard runs after judging the cell: `split` parts the two.
"""

import ast
import builtins
import contextlib
import io
import json
import sys
import tomllib
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from . import config

CHECKS = "# %% hidden checks"  # the line where an example's hidden checks start
EXPECTATIONS = ("completes", "raises")
VERDICTS = ("safe", "unsafe")
RAISED_AT = ("backward", "op")
KEYS = {"expect", "error", "match", "holds", "verdict", "raised_at", "case", "checks", "reads"}


class ManifestError(ValueError):
    """examples/cases.toml says something impossible: one line naming the entry."""


@dataclass(frozen=True)
class Case:
    name: str  # the example's file name without .py
    expect: str
    error: str | None = None
    match: str | None = None
    holds: str | None = None
    verdict: str | None = None
    raised_at: str | None = None
    title: dict[str, str] = field(default_factory=dict)  # language -> name in the summary
    checks: dict[str, str] = field(default_factory=dict)  # language -> what `holds` being True means
    reads: tuple[str, ...] = ()

    @property
    def path(self) -> Path:
        return config.EXAMPLES / f"{self.name}.py"

    @property
    def claim(self) -> str | None:
        """The drift claim that this case's outcome backs (safe:<name> or unsafe:<name>)."""
        return f"{self.verdict}:{self.name}" if self.verdict else None

    def expected(self) -> str:
        """What the case must do, after "must" (failure messages, claim statements)."""
        if self.expect == "raises":
            where = {"op": " at the op itself", "backward": " at backward"}.get(self.raised_at or "", "")
            return f"raise {self.error} containing {self.match!r}{where}"
        return "complete" + (f" with {self.holds} true" if self.holds else "")


def _problem(name: str, entry: dict[str, Any]) -> str | None:
    languages = set(config.LANGUAGES)
    raises = entry.get("expect") == "raises"
    checks = [
        (set(entry) - KEYS, f"unknown key(s) {', '.join(sorted(set(entry) - KEYS))}"),
        (entry.get("expect") not in EXPECTATIONS, f"expect must be one of {', '.join(EXPECTATIONS)}"),
        (raises and not (entry.get("error") and entry.get("match")), "a raising case needs error and match"),
        (not raises and ("error" in entry or "match" in entry), 'error/match only go with expect = "raises"'),
        (entry.get("verdict", "safe") not in VERDICTS, f"verdict must be one of {', '.join(VERDICTS)}"),
        ("verdict" in entry and set(entry.get("case", {})) != languages,
         "a case in the summary needs case = {es = ..., en = ...}"),
        ("holds" in entry and set(entry.get("checks", {})) != languages, "holds needs checks = {es = ..., en = ...}"),
        (entry.get("verdict") == "unsafe" and entry.get("raised_at") not in RAISED_AT,
         f"an unsafe case needs raised_at = one of {', '.join(RAISED_AT)}"),
        (not (config.EXAMPLES / f"{name}.py").is_file(), f"no file examples/{name}.py"),
    ]
    return next((problem for failed, problem in checks if failed), None)


def load(path: Path = config.MANIFEST) -> dict[str, Case]:
    """name -> Case, in the manifest's order."""
    try:
        entries = tomllib.loads(Path(path).read_text("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{Path(path).name}: not valid TOML ({exc})") from None
    return {name: entry_case(name, entry, Path(path).name) for name, entry in entries.items()}


def entry_case(name: str, entry: dict[str, Any], manifest_name: str = "cases.toml") -> Case:
    """The Case of one manifest entry, or ManifestError naming it."""
    problem = _problem(name, entry)
    if problem:
        raise ManifestError(f"{manifest_name} [{name}]: {problem}")
    return Case(name, entry["expect"], entry.get("error"), entry.get("match"), entry.get("holds"),
                entry.get("verdict"), entry.get("raised_at"), dict(entry.get("case", {})),
                dict(entry.get("checks", {})), tuple(entry.get("reads", ())))


@cache
def manifest() -> dict[str, Case]:
    return load()


@cache
def entry_text(name: str) -> str:
    """The example's entry, as a fingerprint reads it: editing one entry re-runs only its pages."""
    return json.dumps(tomllib.loads(config.MANIFEST.read_text("utf-8"))[name], sort_keys=True)


def summary_cases() -> list[Case]:
    """The cases of the safe-case summary: the safe ones, then the unsafe ones, in manifest order."""
    found = manifest().values()
    return [c for c in found if c.verdict == "safe"] + [c for c in found if c.verdict == "unsafe"]


# --- judging one run of a case


@dataclass
class Outcome:
    name: str
    ok: bool  # it did what the manifest says
    raised: str | None = None  # "RuntimeError: ..." (the message before its Hint), or None
    line: str | None = None  # the example's line that raised
    raised_at: str | None = None  # "backward" or "op"
    seen: str = ""  # what happened, in one line
    lineno: int | None = None  # that line's number in the example

    def failure(self) -> str:
        case = manifest()[self.name]
        return f"examples/{self.name}.py must {case.expected()} (examples/cases.toml), but {self.seen}"


def _own_frame(error: BaseException, source: str) -> traceback.FrameSummary | None:
    """The innermost frame of the example's own code in the error's traceback: a line of its source,
    in a file that is not an installed package's nor this repository's modules (a notebook cell
    runs the example under a name of its own)."""
    ours = {line.strip() for line in source.splitlines() if line.strip()}
    elsewhere = (sys.prefix, sys.base_prefix, *(str(config.REPO / p) for p in ("minigpt", "inplace_doctor", "book", "tapegrad", "drift")))
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if (f.line or "").strip() in ours and not f.filename.startswith(elsewhere)]
    return frames[-1] if frames else None


def _assigned_at(source: str, name: str) -> int | None:
    """The line of the last top-level statement of source that assigns name (None if none does)."""
    lines = [node.lineno for node in ast.parse(source).body
             if any(isinstance(target, ast.Name) and target.id == name
                    for target in getattr(node, "targets", [getattr(node, "target", None)]))]
    return lines[-1] if lines else None


def judge(case: Case, error: BaseException | None, namespace: dict[str, Any]) -> Outcome:
    """Outcome of one run of case: error is what it raised (None if it completed), namespace the
    globals it left behind."""
    if error is not None:
        text = f"{type(error).__name__}: {str(error).split(' Hint: ')[0]}"
        frame = _own_frame(error, split(case.path)[0])
        line = frame.line.split("#")[0].strip() if frame and frame.line else None
        where = "backward" if line and line.endswith(".backward()") else "op"
        kind = getattr(builtins, case.error or "", Exception)
        ok = (case.expect == "raises" and isinstance(error, kind) and (case.match or "") in str(error)
              and case.raised_at in (None, where))
        seen = (f"raised at {'backward' if where == 'backward' else 'the op itself'}: {line}" if ok
                else f"it raised {text[:300]}")
        return Outcome(case.name, ok, text, line, where, seen, frame.lineno if frame else None)
    if case.expect == "raises":
        return Outcome(case.name, False, seen="it completed without raising")
    if case.holds and namespace.get(case.holds) is not True:
        return Outcome(case.name, False, seen=f"{case.holds} is {namespace.get(case.holds, 'undefined')!r}",
                       lineno=_assigned_at(split(case.path)[0], case.holds))
    return Outcome(case.name, True, seen="completed" + (f"; {case.holds} is True" if case.holds else ""))


def split(path: Path) -> tuple[str, str]:
    """(what the page shows, the hidden checks with blank lines in front, so that their line numbers
    are the file's) of an example file; no checks: ""."""
    lines = Path(path).read_text("utf-8").split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith(CHECKS)), len(lines))
    return "\n".join(lines[:at]).rstrip("\n") + "\n", "\n" * at + "\n".join(lines[at:])


def run_checks(case: Case, namespace: dict[str, Any], glue: Callable[[str, Any], object],
               error: BaseException | None) -> None:
    """The example's hidden checks, on a copy of the names it left (nothing leaks into the page's
    later cells), with glue(key, value). A failed check raises AssertionError."""
    from . import checks

    code = split(case.path)[1]
    if code.strip():
        with checks.running(glue, error):
            exec(compile(code, str(case.path), "exec"), dict(namespace))


def check_failure(case: Case, failed: Exception) -> str:
    """"examples/fix.py:61, a hidden check of what the prose says: <its message>" (or what the
    check raised, when it is not a failed assertion)."""
    lines = [f.lineno for f in traceback.extract_tb(failed.__traceback__) if Path(f.filename) == case.path]
    where = f"examples/{case.name}.py" + (f":{lines[-1]}" if lines else "")
    if isinstance(failed, AssertionError):
        return f"{where}, a hidden check of what the prose says: {failed or 'assertion failed'}"
    return f"{where}, a hidden check raised {type(failed).__name__}: {failed}"


@dataclass
class Run:
    error: BaseException | None  # what the example raised, or None
    namespace: dict[str, Any]  # the globals it left
    stdout: str
    glued: dict[str, Any]  # myst_nb.glue key -> value
    outcome: Outcome | None = None  # the run judged against the manifest


def execute(name: str) -> Run:
    """Run examples/<name>.py in this process as a fresh __main__, outside any notebook kernel:
    what its page shows, then, if it did what the manifest says, its hidden checks, as the page's
    guard does. What they glue is kept, not displayed; a failed check raises AssertionError."""
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


def outcome_key(name: str) -> str:
    """The store key of one case's outcome: it changes whenever anything the case depends on does."""
    from .deps import example_fingerprint

    return f"{name}-{example_fingerprint(name)}"


def outcome(name: str) -> Outcome:
    """The case's outcome in this build: the one its page's guard saved, else run now."""
    from . import store

    return store.memoized("case", outcome_key(name), lambda: execute(name).outcome)
