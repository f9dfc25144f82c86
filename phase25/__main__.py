"""python -m phase25 {record,check,report}

    record [--out DIR]   measure the installed torch, write DIR/torch-<release>.json (default records/),
                         say what changed; --device cuda: only the claims that run the mini-GPT, on the
                         GPU, into torch-<release>-cuda.json
    check [--records DIR] [--save FILE]   measure; fail if a claim no longer holds or the committed
                         record of this release no longer matches; if all is well, write FILE
    report [RECORD ...]  what changed from one record to the next (default: all committed)

Exit status: 0 fine; 1 a claim no longer holds; 2 bad input (one line on stderr); 3 (check only)
every claim holds but the committed record no longer matches, or lacks a claim: re-record it.
"""

import itertools
import sys
from pathlib import Path
from typing import TypeVar

from minigpt.model import DEVICES
from minigpt.train import use_device

from . import claims, record
from .releases import TORCH_REQUIREMENT

BROKEN, USAGE_ERROR, STALE = 1, 2, 3

USAGE = (
    "usage: python -m phase25 {record [--out DIR] [--device cpu|cuda],check [--records DIR] [--save FILE],"
    "report [RECORD ...]}"
)


T = TypeVar("T")


class UsageError(Exception):
    pass


def option(args: list[str], name: str, default: T, what: str = "a folder") -> tuple[T | str, list[str]]:
    """(value of --name, remaining args); --name must be followed by a value."""
    if name not in args:
        return default, args
    i = args.index(name)
    if i + 1 >= len(args) or args[i + 1].startswith("--"):
        raise UsageError(f"{name} needs {what}")
    return args[i + 1], args[:i] + args[i + 2 :]


def measured(names: list[str] | None = None, compile: bool = True) -> tuple[record.Record, dict[str, claims.Outcome]]:
    """(record, outcomes) of the installed torch, printing each claim as it is checked."""
    outcomes = {}
    for name in names or claims.CLAIMS:
        outcome = outcomes[name] = claims.evaluate(name)
        verdict = "holds" if outcome.holds else "BROKEN" if outcome.broken else "no"  # no: recorded, not required
        print(f"  {verdict if outcome.applicable else 'n/a':<6}  {name}", flush=True)
    return record.measure(outcomes, compile=compile), outcomes


def broken_claims(outcomes: dict[str, claims.Outcome]) -> bool:
    lines = [o.failure() for o in outcomes.values() if o.broken]
    for line in lines:
        print(line, file=sys.stderr)
    return bool(lines)


def measure_into(
    command: str, flag: str, args: list[str], device: str = "cpu"
) -> tuple[record.Record, dict[str, claims.Outcome], Path]:
    """(the installed torch's record, claim outcomes, its record's path in the folder given with flag);
    on a GPU (device), only the claims that run the mini-GPT, no torch.compile section."""
    folder, args = option(args, flag, record.RECORDS)
    if args:
        raise UsageError(f"{command} takes only {flag} DIR, not {args[0]!r}")
    if Path(folder).exists() and not Path(folder).is_dir():
        raise UsageError(f"{flag} {folder}: not a folder")
    try:
        use_device(device)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    where = "" if device == "cpu" else f" on {device} ({record.torch.cuda.get_device_name()})"
    print(f"phase25: {command}: torch {record.torch.__version__}{where}")
    if not claims.supported():
        print(
            f"phase25: torch {claims.release()} is outside the releases the book is built on "
            f"({TORCH_REQUIREMENT}, pyproject.toml): its claims are recorded, none can break"
        )
    new, outcomes = measured(*((None, True) if device == "cpu" else (claims.on_device(), False)))
    return new, outcomes, record.path_for(new["release"], folder, device)


def do_record(args: list[str]) -> int:
    device, args = option(args, "--device", "cpu", what="cpu or cuda")
    if device not in DEVICES:
        raise UsageError(f"--device {device}: must be one of {', '.join(DEVICES)}")
    new, outcomes, path = measure_into("record", "--out", args, device)
    old = record.load(path) if path.exists() else None
    print(f"phase25: wrote {record.write(new, path.parent)}")
    print(record.format_differences(old, new) if old else f"phase25: first record of torch {new['release']}")
    return BROKEN if broken_claims(outcomes) else 0


def do_check(args: list[str]) -> int:
    save, args = option(args, "--save", None, what="a file")
    if save and Path(save).is_dir():
        raise UsageError(f"--save {save}: a folder, not a file")
    records, _ = option(args, "--records", record.RECORDS)
    if not Path(records).exists():
        raise UsageError(f"--records {records}: no such folder")
    new, outcomes, path = measure_into("check", "--records", args)
    status = BROKEN if broken_claims(outcomes) else 0
    old = record.load(path) if path.exists() else None
    changed = record.differences(old, new) if old else []
    unrecorded = sorted(set(new["claims"]) - set(old["claims"])) if old else []
    if old is None:
        print(f"phase25: no committed record of torch {new['release']} ({path}); `python -m phase25 record` makes one")
    elif changed or unrecorded:
        if changed:
            print(record.format_differences(old, new))
        if unrecorded:
            print(f"phase25: {path} lacks {len(unrecorded)} claim(s): {', '.join(unrecorded)}")
        if not status:  # wording only, or claims not measured yet: the record is stale, the prose is not wrong
            why = (
                f"no longer matches what torch {new['release']} prints"
                if changed
                else f"has not measured {', '.join(unrecorded)} yet (a new claim)"
            )
            print(
                f"phase25: {path} {why}, though every claim holds: re-record it with "
                f"nox -s \"drift(torch='{new['release']}')\" and commit it",
                file=sys.stderr,
            )
            status = STALE
    else:
        print(f"phase25: {path} matches torch {new['release']}")
    if save and status != BROKEN:
        print(f"phase25: wrote {record.write(new, path=save)}")
    return status


def do_report(args: list[str]) -> int:
    if args:
        records = sorted((record.load(p) for p in args), key=lambda r: record.release_key(r["release"]))
    else:
        records = list(record.committed().values())
    if len(records) < 2:
        raise UsageError("report needs at least two records to compare")
    for old, new in itertools.pairwise(records):
        print(record.format_differences(old, new))
    return 0


COMMANDS = {"record": do_record, "check": do_check, "report": do_report}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        if not argv or argv[0] not in COMMANDS:
            raise UsageError(USAGE if not argv else f"unknown command {argv[0]!r}; {USAGE}")
        return COMMANDS[argv[0]](argv[1:])
    except (UsageError, record.RecordError) as exc:
        print(f"phase25: error: {exc}", file=sys.stderr)
        return USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main())
