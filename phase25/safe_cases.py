"""The safe-case summary's keys of examples/cases.toml, which the engine leaves to the book
([tool.book.hooks] check-entry and judge, execbook.cases):

    verdict = "unsafe"                # listed in the safe-case summary, as safe or unsafe
    raised_at = "backward"            # with an unsafe verdict: "backward" or "op" (the op itself)
    case = {en = "...", es = "..."}   # its name in the summary, per language
    checks = {en = "...", es = "..."} # with holds: what that name being True means, per language

Each summary case backs a claim, safe:<name> or unsafe:<name> (phase25.claims).
"""

from dataclasses import replace
from typing import Any

from execbook import ENTRY_KEYS, LANGUAGES, Case, Outcome, cases_with
from minigpt.message import before_hint

VERDICTS = ("safe", "unsafe")
RAISED_AT = ("backward", "op")
KEYS = {"verdict", "raised_at", "case", "checks"}
WHERE = {"backward": "at backward", "op": "at the op itself"}


def check_entry(name: str, entry: dict[str, Any]) -> str | None:
    """The problem with this entry's summary keys, in a few words, or None."""
    languages = set(LANGUAGES)
    unknown = set(entry) - ENTRY_KEYS - KEYS
    checks = [
        (unknown, f"unknown key(s) {', '.join(sorted(unknown))}"),
        (entry.get("verdict", "safe") not in VERDICTS, f"verdict must be one of {', '.join(VERDICTS)}"),
        (
            entry.get("verdict") == "safe" and entry.get("expect") == "raises",
            'a safe case must complete: verdict = "safe" with expect = "raises" contradicts itself '
            '(an op that raises is verdict = "unsafe", with raised_at)',
        ),
        (
            "verdict" in entry and set(entry.get("case", {})) != languages,
            "a case in the summary needs case = {es = ..., en = ...}",
        ),
        ("holds" in entry and set(entry.get("checks", {})) != languages, "holds needs checks = {es = ..., en = ...}"),
        (
            entry.get("verdict") == "unsafe" and entry.get("raised_at") not in RAISED_AT,
            f"an unsafe case needs raised_at = one of {', '.join(RAISED_AT)}",
        ),
    ]
    return next((problem for failed, problem in checks if failed), None)


def raised_at(outcome: Outcome) -> str | None:
    """ "backward" when the line that raised calls .backward(), "op" for any other line; None if
    nothing was raised."""
    if outcome.raised is None:
        return None
    return "backward" if outcome.line and outcome.line.endswith(".backward()") else "op"


def judge(case: Case, outcome: Outcome) -> Outcome:
    """A raising case must raise where its entry says (raised_at); the outcome says where it did, and what
    it raised up to torch's closing Hint (its wording changes between releases; the lesson tells it apart)."""
    outcome = replace(outcome, raised=before_hint(outcome.raised)) if outcome.raised else outcome
    where = raised_at(outcome)
    if not outcome.ok or where is None:
        return outcome
    declared = case.extra.get("raised_at")
    if declared not in (None, where):
        return replace(outcome, ok=False, seen=f"it raised {WHERE[where]}, not {WHERE[declared]}: {outcome.line}")
    return replace(outcome, seen=f"raised {WHERE[where]}: {outcome.line}")


def verdict(case: Case) -> str | None:
    return case.extra.get("verdict")


def title(case: Case, language: str) -> str:
    return str(case.extra["case"][language])


def what_holds_means(case: Case, language: str) -> str:
    return str(case.extra["checks"][language])


def claim(case: Case) -> str | None:
    """The claim that this case's outcome backs (safe:<name> or unsafe:<name>)."""
    return f"{verdict(case)}:{case.name}" if verdict(case) else None


def expected(case: Case) -> str:
    """What the case must do, after "must", with where it raises (claim statements)."""
    where = case.extra.get("raised_at")
    return case.expected() + (f" {WHERE[where]}" if where in WHERE else "")


def summary_cases() -> list[Case]:
    """The cases of the safe-case summary: the safe ones, then the unsafe ones, in manifest order."""
    found = cases_with("verdict")
    return [c for c in found if verdict(c) == "safe"] + [c for c in found if verdict(c) == "unsafe"]
