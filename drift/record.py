"""One JSON record per torch release: the message's variable parts and every claim's outcome.

    {"torch": "2.13.0+cpu", "release": "2.13.0", "python": "3.11.7", "measured": "2026-12-02",
     "message": {"anomaly_off": "...", "tensor": "...", "output_of": "Add", ...},
     "claims": {"forward-identical": {"holds": true, "seen": "..."}, ...}}

Records are compared on what PyTorch decides (the message parts and whether each claim holds),
never on when or where they were measured.
"""

import datetime
import json
import platform
import re
from pathlib import Path

import torch

from . import claims, message

RECORDS = Path(__file__).resolve().parents[1] / "records"
# The message parts a record keeps, in the order reports and the compatibility page show them.
MESSAGE_PARTS = ("anomaly_off", "anomaly_on", "tensor", "output_of", "version_now", "version_expected",
                 "hint_off", "hint_on", "anomaly_node", "anomaly_line")


class RecordError(Exception):
    """A record file that cannot be read: printed as one line."""


def release(version=None):
    """'2.13.0+cpu' -> '2.13.0' (the local build tag is not part of the release)."""
    return (version or torch.__version__).split("+")[0]


def release_key(name):
    return tuple(int(n) if n.isdigit() else n for n in re.split(r"[.+]", name))


def measure_message():
    off, on = claims.run_b(False), claims.run_b(True)
    parts_off = message.parts(off.error) if off else {}
    parts_on = message.parts(on.error) if on else {}
    return {
        "anomaly_off": off and off.error,
        "anomaly_on": on and on.error,
        "tensor": parts_off.get("tensor"),
        "output_of": parts_off.get("output_of"),
        "version_now": parts_off.get("version_now"),
        "version_expected": parts_off.get("version_expected"),
        "hint_off": parts_off.get("hint"),
        "hint_on": parts_on.get("hint"),
        "anomaly_node": on and message.anomaly_node(on.warnings),
        "anomaly_line": on and message.forward_line(on.warnings, "minigpt/model.py"),
    }


def measure(outcomes=None):
    """The record of the installed torch (claims evaluated now unless given)."""
    outcomes = outcomes or claims.evaluate_all()
    return {
        "torch": torch.__version__,
        "release": release(),
        "python": platform.python_version(),
        "measured": datetime.date.today().isoformat(),
        "message": measure_message(),
        "claims": {name: {"holds": o.holds, "seen": o.seen} for name, o in outcomes.items()},
    }


def outcomes(record):
    """The record's claims as drift.claims.Outcome objects (for claims.require)."""
    return {name: claims.Outcome(name, c["holds"], c["seen"]) for name, c in record["claims"].items()}


def path_for(release_name, folder=RECORDS):
    return Path(folder) / f"torch-{release_name}.json"


def write(record, folder=RECORDS, path=None):
    """Write record as folder/torch-<release>.json, or to path when given; returns the path."""
    path = Path(path) if path else path_for(record["release"], folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def load(path):
    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordError(f"{path}: no such record") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordError(f"{path}: not a readable JSON record ({exc})") from None
    missing = [k for k in ("release", "message", "claims") if not isinstance(record, dict) or k not in record]
    if missing:
        raise RecordError(f"{path}: not a behaviour record (missing {', '.join(missing)})")
    return record


def committed(folder=RECORDS):
    """release -> record, for every record in folder, oldest release first."""
    records = [load(p) for p in Path(folder).glob("torch-*.json")]
    return {r["release"]: r for r in sorted(records, key=lambda r: release_key(r["release"]))}


def differences(old, new):
    """[(what, old value, new value)] where two records disagree on what PyTorch decides."""
    rows = []
    for part in MESSAGE_PARTS:
        a, b = old["message"].get(part), new["message"].get(part)
        if a != b:
            rows.append((f"message.{part}", a, b))
    for name in sorted(set(old["claims"]) | set(new["claims"])):
        a, b = (r["claims"].get(name, {}).get("holds") for r in (old, new))
        if a != b:
            rows.append((f"claim {name}", a, b))
    return rows


def format_differences(old, new):
    """Readable lines: what changed from old's release to new's (or that nothing did)."""
    rows = differences(old, new)
    head = f"torch {old['release']} -> {new['release']}:"
    if not rows:
        return f"{head} no difference"
    show = lambda v: "(absent)" if v is None else json.dumps(v, ensure_ascii=False)
    return "\n".join([head] + [f"  {what}\n    - {show(a)}\n    + {show(b)}" for what, a, b in rows])
