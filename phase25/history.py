"""What changed across the recorded torch releases, and when: pure functions over records.

A *thing* is one value a record keeps (a message part, a torch.compile field, a claim's outcome:
"holds", "fails" or "n/a"); its history, the *spans* of consecutive releases that agree on it, oldest
first, each later one starting where it changed (a revert too; so does "n/a -> holds", or another
reason for "n/a"). A release whose record lacks the thing belongs to no span. The draft findings
compare what the course's first draft quotes (SEED in examples/errata.py) with each record."""

import ast
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import eq, ge, gt, le, lt
from pathlib import Path

from execbook import excerpt  # noqa: F401 - phase25.tables shows records' texts with it
from inplace_doctor.torch_private import NOT_APPLICABLE as NOT_APPLICABLE_PREFIX

from .record import BACKENDS, COMPILE_FIELDS, MESSAGE_PARTS, Record, model_sizes, release_key

Records = dict[str, Record]  # release -> its record
ERRATA = Path(__file__).resolve().parents[1] / "examples" / "errata.py"  # holds the draft's quotes
HOLDS, FAILS, NOT_APPLICABLE, AVAILABLE = "holds", "fails", "n/a", "available"  # values that are words
MESSAGE, COMPILE, CLAIM = "message", "compile", "claim"
FULL_MESSAGES = ("anomaly_off", "anomaly_on")  # the parts that are run B's whole error text
SENTENCE = re.compile(r"which is output \d+ of .*? instead\.")  # the sentence of the message the draft quotes
RAISES_WITH_ANOMALY, RAISES_WITHOUT_ANOMALY = "b-raises-with-anomaly", "b-raises-without-anomaly"


@dataclass(frozen=True)
class Thing:
    kind: str  # MESSAGE, COMPILE or CLAIM
    name: str | None  # the message part, the compile field (None: whether the backend runs), the claim
    backend: str | None = None  # COMPILE only

    @property
    def what(self) -> str:
        """The name phase25.record.differences gives it: message.output_of, compile.eager.b_hint,
        compile.eager (whether it runs), claim forward-identical."""
        if self.kind == COMPILE:
            return f"compile.{self.backend}" + (f".{self.name}" if self.name else "")
        return f"message.{self.name}" if self.kind == MESSAGE else f"claim {self.name}"


@dataclass(frozen=True)
class Seen:
    value: object  # what a record says: a part's text (None: the message has no such part), HOLDS...
    detail: str | None = None  # why not applicable (compared), or what a failing check saw (not compared)


@dataclass(frozen=True)
class Span:
    value: object
    releases: tuple[str, ...]  # consecutive measured releases with this value, oldest first
    detail: str | None = None  # the first release's

    @property
    def start(self) -> str:
        return self.releases[0]


@dataclass(frozen=True)
class History:
    thing: Thing
    spans: tuple[Span, ...]  # oldest first; empty if no record measured the thing

    @property
    def first(self) -> Span:
        return self.spans[0]

    @property
    def changes(self) -> tuple[Span, ...]:
        """The spans that start where the value changed: (release, new value) in .start, .value."""
        return self.spans[1:]

    @property
    def changed(self) -> bool:
        return len(self.spans) > 1

    @property
    def measured(self) -> tuple[str, ...]:
        return tuple(r for span in self.spans for r in span.releases)


def ordered(records: Records) -> list[str]:
    """The releases of records (release -> record), oldest first."""
    return sorted(records, key=release_key)


def reason(seen: str) -> str:
    """ "not applicable: torch.func is missing from torch 1.13.1+cu117 (...)" -> "torch.func is missing":
    what is missing, without the release that says it (so two releases that lack it agree)."""
    text = seen[len(NOT_APPLICABLE_PREFIX) :] if seen.startswith(NOT_APPLICABLE_PREFIX) else seen
    if missing := re.match(r"(\S+) is missing\b", text):
        return f"{missing.group(1)} is missing"
    return re.sub(r"\btorch \d[\w.+]*", "torch", text)


def missing_api(detail: str | None) -> str | None:
    """ "torch.func is missing" -> "torch.func" (None for any other reason)."""
    found = re.fullmatch(r"(\S+) is missing", detail or "")
    return found and found.group(1)


def observe(record: Record, thing: Thing) -> Seen | None:
    """What record says of thing (a Seen), or None where it did not measure it."""
    if thing.kind == MESSAGE:
        return Seen(record["message"][thing.name]) if thing.name in record["message"] else None
    if thing.kind == CLAIM:
        if (outcome := record["claims"].get(thing.name)) is None:
            return None
        if outcome.get("seen", "").startswith(NOT_APPLICABLE_PREFIX):
            return Seen(NOT_APPLICABLE, reason(outcome["seen"]))
        return Seen(HOLDS) if outcome["holds"] else Seen(FAILS, outcome["seen"])
    if (section := (record.get("compile") or {}).get(thing.backend)) is None:
        return None
    if thing.name is None:
        return (
            Seen(NOT_APPLICABLE, reason(section["not_applicable"])) if "not_applicable" in section else Seen(AVAILABLE)
        )
    if "not_applicable" in section or thing.name not in section:  # the backend did not run there
        return None
    return Seen(section[thing.name])


def things(records: Records, claim_names: Iterable[str] = ()) -> list[Thing]:
    """Every thing the records keep: the message parts, then per backend whether it runs and its
    fields, then the claims (claim_names' order first, then any other a record has)."""
    found = [Thing(MESSAGE, part) for part in MESSAGE_PARTS]
    backends = {b for r in records.values() for b in (r.get("compile") or {})}
    for backend in sorted(backends, key=lambda b: (BACKENDS.index(b) if b in BACKENDS else len(BACKENDS), b)):
        found += [Thing(COMPILE, None, backend)] + [Thing(COMPILE, f, backend) for f in COMPILE_FIELDS]
    names = list(claim_names)
    names += sorted({n for r in records.values() for n in r["claims"]} - set(names))
    return found + [Thing(CLAIM, name) for name in names]


def _same(span: Span, seen: Seen) -> bool:
    """A value, and for "n/a" also why: a release that lacks something else has changed."""
    return span.value == seen.value and (seen.value != NOT_APPLICABLE or span.detail == seen.detail)


def spans(records: Records, observe_one: Callable[[Record], Seen | None]) -> tuple[Span, ...]:
    """Spans of the releases of records (oldest first) on which observe_one(record) agrees; a
    release where it returns None is skipped."""
    found: list[Span] = []
    for release in ordered(records):
        if (seen := observe_one(records[release])) is None:
            continue
        if found and _same(found[-1], seen):
            found[-1] = Span(seen.value, found[-1].releases + (release,), found[-1].detail)
        else:
            found.append(Span(seen.value, (release,), seen.detail))
    return tuple(found)


def history(records: Records, claim_names: Iterable[str] = ()) -> list[History]:
    """[History] of every thing the records keep (things), in that order; things no record
    measured are left out."""
    found = [History(t, spans(records, functools.partial(observe, thing=t))) for t in things(records, claim_names)]
    return [h for h in found if h.spans]


def compress(releases: Iterable[str], recorded: list[str]) -> list[tuple[str, str]]:
    """["2.10.0", "2.11.0", "2.13.0"] -> [("2.10.0", "2.11.0"), ("2.13.0", "2.13.0")]: runs of
    releases consecutive among recorded (all the releases, oldest first)."""
    runs: list[tuple[str, str]] = []
    for release in sorted(releases, key=release_key):
        i = recorded.index(release)
        if runs and recorded.index(runs[-1][1]) == i - 1:
            runs[-1] = (runs[-1][0], release)
        else:
            runs.append((release, release))
    return runs


def draft_quotes(path: str | Path = ERRATA) -> dict[str, str]:
    """The draft's quotes, as examples/errata.py keeps them (its SEED dict), read without running it."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SEED" for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(f"{path}: no SEED")


def _linear(name: str) -> tuple[int, int]:
    """ "2·n_layer-1" -> (2, -1): the version a record names, as a·n_layer + b."""
    if not (found := re.fullmatch(r"(\d+)·\w+(?:([+-])(\d+))?", name)):
        raise ValueError(f"not a version name: {name}")
    a, sign, b = found.groups()
    return int(a), (int(b) if sign == "+" else -int(b)) if b else 0


def concrete(text: str | None, names: dict[str, str], dims: str, n_layer: int) -> str | None:
    """A record's text with the model's sizes written as numbers: dims (e.g. "1, 8, 64") for the
    shape's name, and the version names for this n_layer."""
    if text is None:
        return None
    text = text.replace(names["shape"], f"[{dims}]")
    for part in sorted(("version_now", "version_expected"), key=lambda p: -len(names[p])):  # longer first
        a, b = _linear(names[part])
        text = text.replace(names[part], str(a * n_layer + b))
    return text


@dataclass(frozen=True)
class Finding:
    key: str  # SEED's key, or "node" for the producer's name looked for anywhere
    quote: str  # what the draft says
    printed_by: tuple[str, ...]  # the recorded releases that print it (for "torch": that fit the draft's statement)
    instead: tuple[Span, ...]  # Spans: what the records print at that place, release by release


def _spans_of_part(records: Records, part: str) -> tuple[Span, ...]:
    return spans(records, lambda r: Seen(r["message"][part]) if part in r["message"] else None)


def draft_findings(
    records: Records, seed: dict[str, str] | None = None, names: dict[str, str] | None = None
) -> list[Finding]:
    """[Finding] for each thing the draft quotes about run B's error, from records."""
    seed = seed or draft_quotes()
    names = names or {part: name for part, (_, name) in model_sizes().items()}  # the names a record writes
    shape = re.search(r"\[([\d, ]+)\]\]$", seed["shape"])
    parts = re.search(r"output \d+ of (\w+), is at version (\d+); expected version (\d+)", seed["message"])
    if shape is None or parts is None:
        raise ValueError("examples/errata.py: SEED's shape or message is not the draft's error")
    dims = shape.group(1)  # the draft's input and width
    quoted = dict(zip(("output_of", "version_now", "version_expected"), parts.groups(), strict=True))
    tries = range(1, 1 + max(int(n) for n in re.findall(r"\d+", seed["message"])))  # n_layer: 2·n_layer ≥ n_layer

    def prints(sentence: str, parts: Iterable[str]) -> Callable[[Record], bool]:
        return lambda record: any(
            sentence in (concrete(record["message"].get(p), names, dims, n) or "") for p in parts for n in tries
        )

    def sentence(record: Record) -> Seen | None:
        found = SENTENCE.search(record["message"].get("anomaly_on") or "")
        return Seen(found and found.group(0)) if "anomaly_on" in record["message"] else None

    def versions(record: Record) -> Seen:
        return Seen(f"{record['message'].get('version_now')}; {record['message'].get('version_expected')}")

    def same_versions(record: Record) -> bool:
        now, expected = record["message"].get("version_now"), record["message"].get("version_expected")
        wanted = (quoted["version_now"], quoted["version_expected"])
        return any((concrete(now, names, dims, n), concrete(expected, names, dims, n)) == wanted for n in tries)

    def finding(key: str, quote: str, test: Callable[[Record], bool], instead: tuple[Span, ...]) -> Finding:
        return Finding(key, quote, tuple(r for r in ordered(records) if test(records[r])), instead)

    node = re.compile(rf"\b{re.escape(seed['producer'])}\b")  # the name exactly: not ...Backward0
    version_phrase = f"is at version {quoted['version_now']}; expected version {quoted['version_expected']}"
    in_range, raises = torch_range(seed["torch"]), Thing(CLAIM, RAISES_WITH_ANOMALY)
    return [
        finding("message", seed["message"], prints(seed["message"], FULL_MESSAGES), spans(records, sentence)),
        finding(
            "producer",
            f"output 0 of {quoted['output_of']}",
            lambda r: r["message"].get("output_of") == quoted["output_of"],
            _spans_of_part(records, "output_of"),
        ),
        finding(
            "node",
            seed["producer"],
            lambda r: any(node.search(r["message"].get(p) or "") for p in FULL_MESSAGES + ("anomaly_node",)),
            _spans_of_part(records, "anomaly_node"),
        ),
        finding("versions", version_phrase, same_versions, spans(records, versions)),
        finding(
            "shape",
            seed["shape"],
            lambda r: concrete(r["message"].get("tensor"), names, dims, 1) == seed["shape"],
            _spans_of_part(records, "tensor"),
        ),
        finding(
            "torch",
            seed["torch"],
            lambda r: in_range(r["release"]) and getattr(observe(r, raises), "value", None) == HOLDS,
            spans(records, lambda r: observe(r, Thing(CLAIM, RAISES_WITHOUT_ANOMALY))),
        ),
    ]


def torch_range(text: str) -> Callable[[str], bool]:
    """ "PyTorch ≥ 1.5" -> a test of a release name (≥, >, ≤, <, = with a release)."""
    if not (found := re.search(r"(≥|>=|>|≤|<=|<|=)\s*(\d+(?:\.\d+)*)", text)):
        raise ValueError(f"no release range in {text!r}")
    op, bound = found.groups()
    compare = {"≥": ge, ">=": ge, ">": gt, "≤": le, "<=": le, "<": lt, "=": eq}[op]
    return lambda release: compare(release_key(release), release_key(bound))
