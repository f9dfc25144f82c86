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

Everything else derives from it: the book's pages tag the cell of a raising example and follow
every case with a hidden guard (docs/_ext/cases.py), the guard checks the outcome with
`judge`, the tests run each file through `run` and judge it the same way, and the safe-case
summary lists the outcomes the guards recorded.
"""

import contextlib
import io
import sys
import tomllib
import traceback
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
MANIFEST = EXAMPLES / "cases.toml"
EXPECTATIONS = ("completes", "raises")
VERDICTS = ("safe", "unsafe")
RAISED_AT = ("backward", "op")
LANGUAGES = ("es", "en")
KEYS = {"expect", "error", "match", "holds", "verdict", "raised_at", "case", "checks", "reads"}


class ManifestError(ValueError):
    """examples/cases.toml says something impossible: one line naming the entry."""


@dataclass(frozen=True)
class Case:
    name: str  # the example's file name without .py
    expect: str
    error: str = None
    match: str = None
    holds: str = None
    verdict: str = None
    raised_at: str = None
    title: dict = field(default_factory=dict)  # language -> name in the summary
    checks: dict = field(default_factory=dict)  # language -> what `holds` being True means
    reads: tuple = ()

    @property
    def path(self):
        return EXAMPLES / f"{self.name}.py"  # EXAMPLES read at call time: tests point it elsewhere

    @property
    def claim(self):
        """The drift claim that this case's outcome backs (safe:<name> or unsafe:<name>)."""
        return f"{self.verdict}:{self.name}" if self.verdict else None

    def expected(self):
        """What the case must do, after "must" (failure messages, claim statements)."""
        if self.expect == "raises":
            where = {"op": " at the op itself", "backward": " at backward"}.get(self.raised_at, "")
            return f"raise {self.error} containing {self.match!r}{where}"
        return "complete" + (f" with {self.holds} true" if self.holds else "")


def _case(name, entry):
    unknown = set(entry) - KEYS
    problem = (f"unknown key(s) {', '.join(sorted(unknown))}" if unknown
               else f"expect must be one of {', '.join(EXPECTATIONS)}" if entry.get("expect") not in EXPECTATIONS
               else "a raising case needs error and match" if entry["expect"] == "raises"
               and not (entry.get("error") and entry.get("match"))
               else "error/match only go with expect = \"raises\"" if entry["expect"] != "raises"
               and ("error" in entry or "match" in entry)
               else f"verdict must be one of {', '.join(VERDICTS)}" if entry.get("verdict", "safe") not in VERDICTS
               else "a case in the summary needs case = {es = ..., en = ...}" if "verdict" in entry
               and set(entry.get("case", {})) != set(LANGUAGES)
               else "holds needs checks = {es = ..., en = ...}" if "holds" in entry
               and set(entry.get("checks", {})) != set(LANGUAGES)
               else f"an unsafe case needs raised_at = one of {', '.join(RAISED_AT)}"
               if entry.get("verdict") == "unsafe" and entry.get("raised_at") not in RAISED_AT
               else f"no file examples/{name}.py" if not (EXAMPLES / f"{name}.py").is_file()
               else None)
    if problem:
        raise ManifestError(f"{MANIFEST.name} [{name}]: {problem}")
    return Case(name, entry["expect"], entry.get("error"), entry.get("match"), entry.get("holds"),
                entry.get("verdict"), entry.get("raised_at"), dict(entry.get("case", {})),
                dict(entry.get("checks", {})), tuple(entry.get("reads", ())))


def load(path=MANIFEST):
    """name -> Case, in the manifest's order."""
    return {name: _case(name, entry) for name, entry in tomllib.loads(Path(path).read_text("utf-8")).items()}


@cache
def manifest():
    return load()


def summary_cases():
    """The cases of the safe-case summary: the safe ones, then the unsafe ones, in manifest order."""
    cases = manifest().values()
    return [c for c in cases if c.verdict == "safe"] + [c for c in cases if c.verdict == "unsafe"]


# --- judging one run of a case


@dataclass
class Outcome:
    name: str
    ok: bool  # it did what the manifest says
    raised: str = None  # "RuntimeError: ..." (the message before its Hint), or None
    line: str = None  # the example's line that raised
    raised_at: str = None  # "backward" or "op"
    seen: str = ""  # what happened, in one line

    def failure(self):
        case = manifest()[self.name]
        return f"examples/{self.name}.py must {case.expected()}, but {self.seen}"


def _own_line(error, source):
    """The line of the example's own code that the error came out of (its outermost frame that
    is not in a package or the standard library)."""
    ours = {line.strip() for line in source.splitlines()}
    frames = [f for f in traceback.extract_tb(error.__traceback__) if (f.line or "").strip() in ours
              and not f.filename.startswith((sys.prefix, sys.base_prefix, str(REPO / "minigpt")))]
    return frames[-1].line.split("#")[0].strip() if frames else None


def judge(case, error, namespace):
    """Outcome of one run of case: error is what it raised (None if it completed), namespace the
    globals it left behind."""
    if error is not None:
        kind = type(error).__name__
        text = f"{kind}: {str(error).split(' Hint: ')[0]}"
        line = _own_line(error, case.path.read_text("utf-8"))
        where = "backward" if line and line.endswith(".backward()") else "op"
        outcome = Outcome(case.name, False, text, line, where, f"it raised {text[:300]}")
        outcome.ok = (case.expect == "raises" and isinstance(error, _exception_type(case.error))
                      and case.match in str(error) and case.raised_at in (None, where))
        if outcome.ok:
            outcome.seen = f"raised at {'backward' if where == 'backward' else 'the op itself'}: {line}"
        return outcome
    if case.expect == "raises":
        return Outcome(case.name, False, seen="it completed without raising")
    if case.holds and namespace.get(case.holds) is not True:
        return Outcome(case.name, False, seen=f"{case.holds} is {namespace.get(case.holds, 'undefined')!r}")
    return Outcome(case.name, True, seen="completed" + (f"; {case.holds} is True" if case.holds else ""))


def _exception_type(name):
    import builtins

    return getattr(builtins, name, Exception)


@dataclass
class Run:
    error: BaseException  # what the example raised, or None
    namespace: dict  # the globals it left
    stdout: str
    glued: dict  # myst_nb.glue key -> value
    outcome: Outcome = None  # the run judged against the manifest


def execute(name):
    """Run examples/<name>.py in this process as a fresh __main__, outside any notebook kernel,
    then, if it did what the manifest says, its publisher (book.publish), as the book's hidden
    guard does. What they glue is kept, not displayed; a publisher's failed check raises."""
    from .publish import publish

    case = manifest()[name]
    run = Run(None, {"__name__": "__main__", "__file__": str(case.path)}, "", {})
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        try:
            exec(compile(case.path.read_text("utf-8"), str(case.path), "exec"), run.namespace)
        except Exception as exc:  # noqa: BLE001 - judged against the manifest
            run.error = exc
        run.outcome = judge(case, run.error, run.namespace)
        if run.outcome.ok:
            publish(name, run.namespace, run.glued.__setitem__, run.error)
    run.stdout = output.getvalue()
    return run


def run(name):
    """Run examples/<name>.py in this process and judge it."""
    return execute(name).outcome


# --- outcomes shared by the pages and the claims


def outcome_key(name):
    """The store key of one case's outcome: it changes whenever anything the case depends on does."""
    from .deps import example_dependencies, fingerprint

    return f"{name}-{fingerprint(example_dependencies(name))}"


def outcome(name):
    """The case's outcome in this build: the one its page's guard recorded, else run now."""
    from . import store

    return store.memoized("case", outcome_key(name), lambda: run(name))


def failure_line(outcome):
    """One line: what the case must do and what it did (as a broken claim where it backs one)."""
    import torch

    case = manifest()[outcome.name]
    claim = f"claim {case.claim} no longer holds on torch {torch.__version__}: " if case.claim else ""
    return claim + outcome.failure()
